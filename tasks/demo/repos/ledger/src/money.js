// Amounts as integer cents, so totals never drift.

/** Cents in a decimal amount string such as "12.34" or "-0.50". */
export function parseAmount(text) {
  const value = Number.parseFloat(text);
  if (Number.isNaN(value)) throw new TypeError(`not an amount: ${text}`);
  return Math.trunc(value * 100);
}

/** A cent count as a decimal string with two places: 1234 -> "12.34". */
export function formatCents(cents) {
  const sign = cents < 0 ? "-" : "";
  const whole = Math.abs(cents);
  return `${sign}${Math.floor(whole / 100)}.${String(whole % 100).padStart(2, "0")}`;
}
