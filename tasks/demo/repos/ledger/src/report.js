import { balance } from "./ledger.js";
import { formatCents } from "./money.js";

/** One-line summary of a ledger: how many entries and their balance. */
export function summary(entries) {
  return `entries: ${entries.length}; balance: ${formatCents(balance(entries))}`;
}
