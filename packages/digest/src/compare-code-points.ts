/**
 * Orders strings by Unicode code point, the order of Python's `sorted()` on str (UTF-16 order, JavaScript's default,
 * differs above U+FFFF: "😀" sorts before "！" there). For well-formed strings this is also UTF-8 byte order. Returns
 * <0, 0 or >0; never throws. A lone surrogate sorts like the lead unit of a pair (above the rest of the BMP), where
 * Python would put it below U+E000; validated paths and names never hold one.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // At the first differing unit, lifting surrogates above U+E000..U+FFFF yields code-point order.
    return liftSurrogate(x) - liftSurrogate(y);
  }
  return a.length - b.length;
}

function liftSurrogate(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
