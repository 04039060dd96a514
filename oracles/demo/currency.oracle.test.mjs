// Hidden oracle of demo-ledger-currency (black-box): the summary names the currency, and the balance refuses entries
// that mix currencies, wherever in the modules the candidate put that check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readAnswers } from "./black-box-report.mjs";

// One answer per probe case, in its order: four summaries (EUR, default USD, explicit USD, empty), then three balances
// (explicit and default USD together; EUR beside a default; USD beside EUR).
const EXPECTED = [
  { returned: "entries: 2; balance: 1.50 EUR" }, { returned: "entries: 1; balance: 2.00" }, { returned: "entries: 1; balance: 2.00" }, { returned: "entries: 0; balance: 0.00" },
  { returned: 300 }, { threw: "TypeError" }, { threw: "TypeError" },
];

test("summary prints the currency unless it is USD (the default)", () => {
  assert.deepEqual(readAnswers(EXPECTED.length).slice(0, 4), EXPECTED.slice(0, 4));
});

test("balance adds one currency and refuses a mix", () => {
  assert.deepEqual(readAnswers(EXPECTED.length).slice(4), EXPECTED.slice(4));
});
