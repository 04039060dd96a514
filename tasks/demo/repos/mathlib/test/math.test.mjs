import { test } from "node:test";
import assert from "node:assert/strict";
import { mean, sum } from "../src/math.js";

test("sum adds every value", () => {
  assert.equal(sum([1, 2, 3]), 6);
  assert.equal(sum([]), 0);
});

test("mean divides the sum by the count", () => {
  assert.equal(mean([2, 4]), 3);
  assert.throws(() => mean([]), RangeError);
});
