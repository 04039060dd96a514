const SCALE_DIGITS = 6;
const SCALE = 10n ** BigInt(SCALE_DIGITS);

/** Splits a finite double into an exact integer mantissa and a power-of-two exponent (x = m * 2^e). */
function decomposeDouble(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/**
 * Python's round(x, 6): the 6-decimal value nearest the exact binary number, exact ties to even.
 * Trusts only that x is a number; NaN and ±Infinity pass through unchanged.
 */
export function roundHalfEven6(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const { mantissa, exponent } = decomposeDouble(x);
  let units: bigint;
  if (exponent >= 0) {
    units = (mantissa << BigInt(exponent)) * SCALE;
  } else {
    // Exact rational |x| * 10^6 = numerator / denominator; round that quotient half to even.
    const numerator = mantissa * SCALE;
    const denominator = 1n << BigInt(-exponent);
    const quotient = numerator / denominator;
    const twiceRemainder = (numerator - quotient * denominator) * 2n;
    units = quotient;
    if (twiceRemainder > denominator || (twiceRemainder === denominator && quotient % 2n === 1n)) units += 1n;
  }
  const digits = units.toString().padStart(SCALE_DIGITS + 1, "0");
  const text = `${digits.slice(0, -SCALE_DIGITS)}.${digits.slice(-SCALE_DIGITS)}`;
  // Number() picks the double nearest the decimal, as Python's float(repr) round-trip does.
  const magnitude = Number(text);
  return x < 0 ? -magnitude : magnitude;
}
