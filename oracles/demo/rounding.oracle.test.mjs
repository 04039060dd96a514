// Hidden oracle of demo-ledger-rounding (black-box): the root cause is parseAmount truncating binary floating-point
// products, so the probe asks parseAmount itself, then the summary from the bug report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readAnswers } from "./black-box-report.mjs";

// One answer per probe case, in its order: parseAmount of "0.29", "1.13", "19.99", "-0.29", "4.35", "12", "0.50",
// "twelve", then summary([{ amount: "1.13" }, { amount: "0.29" }]).
const EXPECTED = [
  { returned: 29 }, { returned: 113 }, { returned: 1999 }, { returned: -29 }, { returned: 435 }, { returned: 1200 }, { returned: 50 },
  { threw: "TypeError" },
  { returned: "entries: 2; balance: 1.42" },
];

test("parseAmount counts every two-decimal amount to the exact cent", () => {
  assert.deepEqual(readAnswers(EXPECTED.length).slice(0, 8), EXPECTED.slice(0, 8));
});

test("the reported summary is right", () => {
  assert.deepEqual(readAnswers(EXPECTED.length)[8], EXPECTED[8]);
});
