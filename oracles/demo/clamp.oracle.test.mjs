// Hidden oracle of the demo task demo-clamp: staged read-only beside the candidate only after the model exited.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clamp } from "../src/math.js";

test("clamp limits a value to [min, max]", () => {
  assert.equal(clamp(5, 0, 10), 5);
  assert.equal(clamp(-1, 0, 10), 0);
  assert.equal(clamp(11, 0, 10), 10);
  assert.equal(clamp(0, 0, 0), 0);
});

test("clamp refuses an empty range", () => {
  assert.throws(() => clamp(1, 10, 0), RangeError);
});
