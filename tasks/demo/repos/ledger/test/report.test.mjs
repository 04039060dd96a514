import { test } from "node:test";
import assert from "node:assert/strict";
import { summary } from "../src/report.js";

test("summary counts the entries and prints their balance", () => {
  assert.equal(summary([{ amount: "2.50" }, { amount: "1.00", memo: "coffee" }]), "entries: 2; balance: 3.50");
  assert.equal(summary([]), "entries: 0; balance: 0.00");
});
