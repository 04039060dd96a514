import { test } from "node:test";
import assert from "node:assert/strict";
import * as math from "../src/math.js";

test("clamp keeps values inside the range", () => {
  assert.equal(typeof math.clamp, "function", "src/math.js must export clamp");
  assert.equal(math.clamp(5, 0, 10), 5);
  assert.equal(math.clamp(-3, 0, 10), 0);
  assert.equal(math.clamp(42, 0, 10), 10);
});
