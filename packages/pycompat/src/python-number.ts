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

function checkDigits(what: string, digits: number): void {
  if (!Number.isInteger(digits) || digits < 0 || digits > 20) throw new RangeError(`${what}: digits must be an integer in 0..20, got ${String(digits)}`);
}

/** |x| rounded to `digits` decimals, exact ties to even, as a plain decimal string (no sign, no exponent). */
function roundedMagnitude(x: number, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const { mantissa, exponent } = decomposeDouble(x);
  let units: bigint;
  if (exponent >= 0) {
    units = (mantissa << BigInt(exponent)) * scale;
  } else {
    // Exact rational |x| * 10^digits = numerator / denominator; round that quotient half to even.
    const numerator = mantissa * scale;
    const denominator = 1n << BigInt(-exponent);
    const quotient = numerator / denominator;
    const twiceRemainder = (numerator - quotient * denominator) * 2n;
    units = quotient;
    if (twiceRemainder > denominator || (twiceRemainder === denominator && quotient % 2n === 1n)) units += 1n;
  }
  const padded = units.toString().padStart(digits + 1, "0");
  return digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/**
 * Python's `round(x, digits)` for 0 <= digits <= 20: the decimal nearest the exact binary value, exact ties to even
 * (Math.round(x * 10^n) / 10^n gets ties wrong, and decisions recomputed later must match exactly). NaN and ±Infinity
 * pass through; other digit counts are refused with a RangeError.
 */
export function roundHalfEven(x: number, digits: number): number {
  checkDigits("roundHalfEven", digits);
  if (!Number.isFinite(x) || x === 0) return x;
  // Number() picks the double nearest the decimal, as Python's float(repr) round-trip does.
  const magnitude = Number(roundedMagnitude(x, digits));
  return x < 0 ? -magnitude : magnitude;
}

/**
 * Python's `"%.*f" % (digits, x)` for 0 <= digits <= 20: the exact decimal of x rounded half to even, every digit of a
 * huge value (`toFixed` writes 1e+21 and beyond in exponent form, and rounds exact ties up: 0.03125 → "0.0313" where
 * Python writes "0.0312"), `-0.0` for a negative value that rounds to zero, and `inf` / `-inf` / `nan`. Other digit
 * counts are refused with a RangeError.
 */
export function formatFixed(x: number, digits: number): string {
  checkDigits("formatFixed", digits);
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const magnitude = x === 0 ? roundedMagnitude(0, digits) : roundedMagnitude(x, digits);
  return x < 0 || Object.is(x, -0) ? `-${magnitude}` : magnitude;
}

/** Python's `statistics.median`: the middle value, or the mean of the middle pair; refuses [] with a RangeError. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
