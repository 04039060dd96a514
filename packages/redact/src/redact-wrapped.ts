import { REDACTED } from "./marker.js";

// What `base64`, MIME and PEM print: the encoding cut into lines (76 or 64 columns, `\n` or `\r\n`, any width with
// `base64 -w N`). A secret's encoded form then straddles one or more breaks at any position, and the literal pass,
// which only finds it whole, misses it. This pass joins the base64 / base64url characters (and `=`) across every
// break that sits between two of them, searches the joined text for each form, and replaces the whole original span,
// interior breaks included.
//
// A break is a run of CR / LF, raw or JSON-escaped (`\n`, `\r`, and `\\n` for JSON inside JSON), with the spaces and
// tabs around it, so an indented continuation (a YAML block, a folded header) joins too. Blanks alone never join:
// `a b` is two words, not one wrapped token.
//
// Linear time, no backtracking regex: break characters are found with native indexOf; at each break at most `reach`
// characters are walked back, the segment after it is measured with a sticky character-class regex (no
// alternation, no nesting); the joined text holds at most `reach` characters on each side of every break (a form
// that crosses a break cannot reach further), and each form is searched for once over it with indexOf.

const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const ENCODED_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_";
const ENCODED = new Uint8Array(128);
for (const c of ENCODED_CHARS) ENCODED[c.charCodeAt(0)] = 1;
// Measures a segment of encoded characters from lastIndex (sticky): one character class, so linear time.
const ENCODED_SEGMENT = "[A-Za-z0-9+/=_-]*";
const JS_SEGMENT_STEPS = 16;

/** True when `form` could be found by {@link redactWrapped}: only base64 / base64url characters. */
export function isWrappable(form: string): boolean {
  for (let i = 0; i < form.length; i += 1) if (!isEncoded(form.charCodeAt(i))) return false;
  return form.length > 0;
}

/**
 * Replaces every occurrence of `forms` (each {@link isWrappable}, at least 2 characters) that straddles a line break,
 * the breaks inside it included, with REDACTED; overlapping occurrences become one marker. Text without such an
 * occurrence comes back unchanged. Occurrences that do not straddle a break are the literal pass's, which runs first.
 */
export function redactWrapped(text: string, forms: readonly string[]): string {
  if (forms.length === 0) return text;
  const lengths = forms.map((form) => form.length);
  const reach = Math.max(...lengths) - 1;
  const shortest = Math.min(...lengths);
  const joined = joinAcrossBreaks(text, reach, shortest, undefined);
  if (joined === undefined || !forms.some((form) => joined.includes(form))) return text;
  // Rare: a form is wrapped in the text. Join again, now noting where each piece came from, to map matches back.
  const origins = new PieceOrigins();
  joinAcrossBreaks(text, reach, shortest, origins);
  const spans: [number, number][] = [];
  for (const form of forms) {
    for (let at = joined.indexOf(form); at !== -1; at = joined.indexOf(form, at + form.length)) {
      spans.push([origins.originOf(at), origins.originOf(at + form.length - 1) + 1]);
    }
  }
  if (spans.length === 0) return text;
  // A fixed order, so the output is deterministic whatever order the forms were found in.
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const parts: string[] = [];
  let kept = 0;
  let [start, end] = spans[0] as [number, number];
  for (const [from, to] of spans) {
    if (from < end) {
      end = Math.max(end, to);
      continue;
    }
    parts.push(text.slice(kept, start), REDACTED);
    kept = end;
    [start, end] = [from, to];
  }
  parts.push(text.slice(kept, start), REDACTED, text.slice(end));
  return parts.join("");
}

// Where each piece of the joined text was copied from: piece k starts at joinedStart[k] there and originStart[k] in
// the text. Only kept when a match must be mapped back, so text without one costs no more than the joined copy.
class PieceOrigins {
  private joinedStart = new Int32Array(1024);
  private originStart = new Int32Array(1024);
  count = 0;

  add(joinedAt: number, originAt: number): void {
    if (this.count === this.joinedStart.length) {
      this.joinedStart = growInts(this.joinedStart);
      this.originStart = growInts(this.originStart);
    }
    this.joinedStart[this.count] = joinedAt;
    this.originStart[this.count] = originAt;
    this.count += 1;
  }

  /** Index in the text of the character at `index` of the joined text (never a run separator). */
  originOf(index: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.joinedStart[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return (this.originStart[lo] as number) + index - (this.joinedStart[lo] as number);
  }
}

// Collects, for each break between two encoded characters, the encoded characters on both sides (at most `reach` of
// a long segment), joining the segments of a run that only breaks separate. A run shorter than `shortest` cannot
// hold a form and is dropped. Runs are separated by a space, in no form. Undefined when no run is kept.
function joinAcrossBreaks(text: string, reach: number, shortest: number, origins: PieceOrigins | undefined): string | undefined {
  const n = text.length;
  const segment = new RegExp(ENCODED_SEGMENT, "y");
  let chars = new Uint8Array(0);
  let length = 0;
  // The open run: where it starts in the joined text and in the pieces, and where its last piece ends in the text.
  let runOpen = false;
  let runLength = 0;
  let runPieces = 0;
  let runEnd = -1;
  // Where the last segment too long to keep whole ends: a run starting there takes its last `reach` characters.
  let longEnd = -1;
  // Where the last break or segment ended: the walk back over blanks stops there.
  let handled = 0;

  const append = (from: number, to: number): void => {
    if (length + (to - from) + 1 > chars.length) {
      const next = new Uint8Array(Math.max(length + (to - from) + 1, 2 * chars.length, 4096));
      next.set(chars.subarray(0, length));
      chars = next;
    }
    origins?.add(length, from);
    // Locals, so the copy loop keeps them in registers rather than in the closure.
    const out = chars;
    let at = length;
    for (let i = from; i < to; i += 1) out[at++] = text.charCodeAt(i);
    length = at;
  };
  const closeRun = (): void => {
    if (!runOpen) return;
    runOpen = false;
    if (length - runLength < shortest) {
      length = runLength;
      if (origins !== undefined) origins.count = runPieces;
    } else {
      chars[length++] = 0x20; // append() always leaves room for it
    }
  };

  let nextLf = text.indexOf("\n");
  let nextCr = text.indexOf("\r");
  let nextBackslash = text.indexOf("\\");
  for (let i = 0; i < n; ) {
    let c = text.charCodeAt(i);
    if (c !== LF && c !== CR && c !== BACKSLASH) {
      // Skip to the next break character natively (densely wrapped text finds it right here instead).
      if (nextLf !== -1 && nextLf < i) nextLf = text.indexOf("\n", i);
      if (nextCr !== -1 && nextCr < i) nextCr = text.indexOf("\r", i);
      if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = text.indexOf("\\", i);
      i = earliest(nextLf, nextCr, nextBackslash);
      if (i === -1) break;
      c = text.charCodeAt(i);
    }
    // A break starts here: a raw CR / LF, or backslashes escaping `n` / `r` (`\\n` is JSON inside JSON).
    if (c === BACKSLASH) {
      let j = i + 1;
      while (j < n && text.charCodeAt(j) === BACKSLASH) j += 1;
      const letter = text.charCodeAt(j);
      if (letter !== 0x6e && letter !== 0x72) {
        i = j;
        continue;
      }
    }
    let start = i;
    while (start > handled && isBlank(text.charCodeAt(start - 1))) start -= 1;
    const end = skipBreak(text, i);
    handled = end;
    i = end;
    if (start === 0 || end === n || !isEncoded(text.charCodeAt(start - 1)) || !isEncoded(text.charCodeAt(end))) continue;

    if (!runOpen || runEnd !== start) {
      closeRun();
      runOpen = true;
      runLength = length;
      runPieces = origins?.count ?? 0;
      // Only the last `reach` characters before the break can belong to a form that crosses it.
      let from = start - 1;
      if (longEnd === start) from = start - reach;
      else while (from > 0 && start - from < reach && isEncoded(text.charCodeAt(from - 1))) from -= 1;
      append(from, start);
    }
    const to = segmentEnd(text, end, segment);
    handled = to;
    i = to;
    if (to - end > 2 * reach) {
      // Too long for a form to span: its first `reach` end this run, its last `reach` may start the next one.
      append(end, end + reach);
      closeRun();
      longEnd = to;
    } else {
      append(end, to);
      runEnd = to;
    }
  }
  closeRun();
  if (length === 0) return undefined;

  return Buffer.from(chars.buffer, chars.byteOffset, length).toString("latin1");
}

// The end of the break whose first token is at `at`: every following CR, LF, blank and escaped `\r` / `\n` (any
// number of backslashes before the letter).
function skipBreak(text: string, at: number): number {
  const n = text.length;
  let i = at;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR || isBlank(c)) {
      i += 1;
      continue;
    }
    if (c !== BACKSLASH) break;
    let j = i + 1;
    while (j < n && text.charCodeAt(j) === BACKSLASH) j += 1;
    const letter = text.charCodeAt(j);
    if (letter !== 0x6e && letter !== 0x72) break;
    i = j + 1;
  }
  return i;
}

// The end of the segment of encoded characters at `at`: a few steps in JavaScript (most segments next to a break in
// ordinary text are short words), then the sticky regex for a long one (a line of base64).
function segmentEnd(text: string, at: number, segment: RegExp): number {
  const limit = Math.min(text.length, at + JS_SEGMENT_STEPS);
  let i = at;
  while (i < limit && isEncoded(text.charCodeAt(i))) i += 1;
  if (i < limit || i === text.length) return i;
  segment.lastIndex = i;
  segment.test(text);
  return segment.lastIndex;
}

function earliest(a: number, b: number, c: number): number {
  let best = a;
  if (b !== -1 && (best === -1 || b < best)) best = b;
  if (c !== -1 && (best === -1 || c < best)) best = c;
  return best;
}

function isEncoded(c: number): boolean {
  return c < 128 && ENCODED[c] === 1;
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function growInts(array: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(2 * array.length, 1024));
  next.set(array);
  return next;
}
