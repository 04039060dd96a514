import { test } from "node:test";
import assert from "node:assert/strict";
import { formatCents, parseAmount } from "../src/money.js";

test("parseAmount reads whole and half amounts as cents", () => {
  assert.equal(parseAmount("12"), 1200);
  assert.equal(parseAmount("0.50"), 50);
  assert.throws(() => parseAmount("twelve"), TypeError);
});

test("formatCents prints two decimal places", () => {
  assert.equal(formatCents(1234), "12.34");
  assert.equal(formatCents(5), "0.05");
  assert.equal(formatCents(-250), "-2.50");
});
