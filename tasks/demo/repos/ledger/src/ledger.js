import { parseAmount } from "./money.js";

/** Total of the entries' amounts in cents. An entry is { amount: "12.34", memo?: string }. */
export function balance(entries) {
  let cents = 0;
  for (const entry of entries) cents += parseAmount(entry.amount);
  return cents;
}
