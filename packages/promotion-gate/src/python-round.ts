// Decisions are recomputed and compared for exact equality, so rounding must reproduce Python's round():
// nearest decimal of the exact binary value, exact ties to even. Math.round(x*10^n)/10^n gets ties wrong.

const exponentBuffer = new DataView(new ArrayBuffer(8));

/** Exact rational form of a finite double: value = mantissa × 2^exponent. */
function decomposeDouble(value: number): { mantissa: bigint; exponent: number } {
  exponentBuffer.setFloat64(0, value);
  const bits = exponentBuffer.getBigUint64(0);
  const rawExponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const negative = bits >> 63n === 1n;
  const mantissa = rawExponent === 0 ? fraction : fraction | (1n << 52n);
  const exponent = rawExponent === 0 ? -1074 : rawExponent - 1075;
  return { mantissa: negative ? -mantissa : mantissa, exponent };
}

/** Rounds like Python's round(value, digits): trusts nothing about the input's magnitude; non-finite values pass through. */
export function roundHalfEven(value: number, digits: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const { mantissa, exponent } = decomposeDouble(value);
  if (exponent >= 0) return value;
  const negative = mantissa < 0n;
  const numerator = (negative ? -mantissa : mantissa) * 10n ** BigInt(digits);
  const denominator = 1n << BigInt(-exponent);
  let quotient = numerator / denominator;
  const twiceRemainder = 2n * (numerator % denominator);
  if (twiceRemainder > denominator || (twiceRemainder === denominator && quotient % 2n === 1n)) quotient += 1n;
  const magnitude = Number(quotient) / 10 ** digits;
  return negative ? -magnitude : magnitude;
}

/** Median like Python's statistics.median (mean of the middle pair); refuses an empty list by throwing RangeError. */
export function computeMedian(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
