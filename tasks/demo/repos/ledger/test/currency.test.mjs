// The acceptance test of the multi-currency feature (red until the feature is built).
import { test } from "node:test";
import assert from "node:assert/strict";
import { summary } from "../src/report.js";

test("summary prints the entries' currency after the balance, except USD", () => {
  assert.equal(summary([{ amount: "1.00", currency: "EUR" }, { amount: "0.50", currency: "EUR" }]), "entries: 2; balance: 1.50 EUR");
  assert.equal(summary([{ amount: "2.00", currency: "USD" }]), "entries: 1; balance: 2.00");
  assert.equal(summary([{ amount: "2.00" }]), "entries: 1; balance: 2.00");
});
