// An independent, deliberately naive port of reference §5.1 used only by tests: global candidate sort over
// full rank tuples, recursive Kuhn with a Set, and rounding through decimal strings. It shares no code with src/.

type Sev = "critical" | "high" | "medium" | "low";
export interface RefFinding {
  id: string; severity: Sev; path: string; line: number; end_line: number; category: string;
  scenario: string; evidence: string; recommendation: string; blocking: boolean;
}
export interface RefLabel { id: string; severity: Sev; path: string; line_start: number; line_end: number; category: string }

const W: Record<Sev, number> = { critical: 8, high: 5, medium: 2, low: 1 };
const BLOCK = new Set<Sev>(["critical", "high"]);

type Atom = string | number;

function cmpAtom(a: Atom, b: Atom): number {
  if (typeof a === "number" && typeof b === "number") return a === b ? 0 : a < b ? -1 : 1;
  // Code-point order by explicit expansion into code points.
  const x = Array.from(String(a), (c) => c.codePointAt(0) as number);
  const y = Array.from(String(b), (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) < (y[i] as number) ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

function cmpTuple(a: Atom[], b: Atom[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = cmpAtom(a[i] as Atom, b[i] as Atom);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Python round(x, 6) via the exact decimal expansion (toFixed(100) is exact for the magnitudes scored here). */
export function refRound6(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const exact = Math.abs(x).toFixed(100);
  const [intPart, frac] = exact.split(".") as [string, string];
  const kept = frac.slice(0, 6);
  const rest = frac.slice(6);
  let digits = BigInt(intPart + kept);
  const half = "5" + "0".repeat(rest.length - 1);
  if (rest > half || (rest === half && digits % 2n === 1n)) digits += 1n;
  const s = digits.toString().padStart(7, "0");
  const v = Number(`${s.slice(0, -6)}.${s.slice(-6)}`);
  return x < 0 ? -v : v;
}

export function refMatch(actualIn: RefFinding[], expectedIn: RefLabel[]): { actual: RefFinding[]; expected: RefLabel[]; pairs: [number, number][] } {
  const actual = [...actualIn].sort((a, b) =>
    cmpTuple(
      [a.id, a.severity, a.path, a.line, a.end_line, a.category, a.scenario, a.evidence, a.recommendation, a.blocking ? 1 : 0],
      [b.id, b.severity, b.path, b.line, b.end_line, b.category, b.scenario, b.evidence, b.recommendation, b.blocking ? 1 : 0],
    ),
  );
  const expected = [...expectedIn].sort((a, b) =>
    cmpTuple([a.id, a.severity, a.path, a.line_start, a.line_end, a.category], [b.id, b.severity, b.path, b.line_start, b.line_end, b.category]),
  );
  const candidates: Atom[][] = [];
  actual.forEach((a, ai) =>
    expected.forEach((e, ei) => {
      if (a.path !== e.path || !(a.line <= e.line_end && a.end_line >= e.line_start)) return;
      candidates.push([
        a.category === e.category ? 1 : 0, a.severity === e.severity ? 1 : 0, -Math.abs(a.line - e.line_start),
        -(e.line_end - e.line_start), a.path, a.category, a.line, ai, ei,
      ]);
    }),
  );
  candidates.sort((x, y) => cmpTuple(y, x));
  const adj = new Map<number, number[]>();
  for (const c of candidates) {
    const ai = c[7] as number;
    adj.set(ai, [...(adj.get(ai) ?? []), c[8] as number]);
  }
  const owner = new Map<number, number>();
  const attempt = (a: number, seen: Set<number>): boolean => {
    for (const e of adj.get(a) ?? []) {
      if (seen.has(e)) continue;
      seen.add(e);
      const o = owner.get(e);
      if (o === undefined || attempt(o, seen)) {
        owner.set(e, a);
        return true;
      }
    }
    return false;
  };
  for (let a = 0; a < actual.length; a++) attempt(a, new Set());
  const pairs = [...owner.entries()].map(([e, a]) => [a, e] as [number, number]).sort((x, y) => x[0] - y[0]);
  return { actual, expected, pairs };
}

export function refScore(verdict: string, actualIn: RefFinding[], expectedIn: RefLabel[]): Record<string, number | boolean | null> {
  const { actual, expected, pairs } = refMatch(actualIn, expectedIn);
  const tp = pairs.length;
  const fp = actual.length - tp;
  const fn = expected.length - tp;
  const p = actual.length ? tp / (tp + fp) : null;
  const r = expected.length ? tp / (tp + fn) : null;
  const hm = (x: number | null, y: number | null) => (x !== null && y !== null && x + y > 0 ? (2 * x * y) / (x + y) : expected.length ? 0 : null);
  const matchedA = new Set(pairs.map(([a]) => a));
  const ew = expected.reduce((s, e) => s + W[e.severity], 0);
  const mw = pairs.reduce((s, [a, e]) => s + Math.min(W[actual[a]!.severity], W[expected[e]!.severity]), 0);
  const fw = actual.reduce((s, f, i) => s + (matchedA.has(i) ? 0 : W[f.severity]), 0);
  const wp = mw === 0 && fw === 0 ? null : mw / (mw + fw);
  const wr = expected.length ? mw / ew : null;
  const blockers = expected.filter((e) => BLOCK.has(e.severity)).length;
  const rec = pairs.filter(([a, e]) => BLOCK.has(expected[e]!.severity) && BLOCK.has(actual[a]!.severity)).length;
  const want = expected.length === 0 ? "approve" : expected.some((e) => BLOCK.has(e.severity)) ? "request_changes" : "comment";
  const r6 = (x: number | null) => (x === null ? null : refRound6(x));
  const fin = (x: number | null) => x === null || Number.isFinite(x);
  const wf1 = hm(wp, wr);
  return {
    true_positives: tp, false_positives: fp, false_negatives: fn,
    precision: r6(p), recall: r6(r), f1: r6(hm(p, r)),
    weighted_precision: r6(wp), weighted_recall: r6(wr), weighted_f1: r6(wf1),
    blocker_recall: r6(blockers ? rec / blockers : null),
    severity_accuracy: r6(tp ? pairs.filter(([a, e]) => actual[a]!.severity === expected[e]!.severity).length / tp : null),
    category_accuracy: r6(tp ? pairs.filter(([a, e]) => actual[a]!.category === expected[e]!.category).length / tp : null),
    grounded_evidence: r6(actual.length ? actual.filter((f) => f.path && f.line > 0 && f.evidence.trim()).length / actual.length : null),
    verdict_correct: verdict === want,
    clean_control: expected.length === 0,
    clean_pass: expected.length === 0 && actual.length === 0 && verdict === "approve",
    score_finite: fin(p) && fin(r) && fin(wf1),
  };
}

/** Brute-force maximum matching size (exponential; small inputs only). */
export function bruteForceMaxMatching(actual: RefFinding[], expected: RefLabel[]): number {
  const eligible = (a: RefFinding, e: RefLabel) => a.path === e.path && a.line <= e.line_end && a.end_line >= e.line_start;
  const used = new Array<boolean>(expected.length).fill(false);
  const best = (i: number): number => {
    if (i === actual.length) return 0;
    let top = best(i + 1);
    for (let j = 0; j < expected.length; j++) {
      if (used[j] || !eligible(actual[i]!, expected[j]!)) continue;
      used[j] = true;
      top = Math.max(top, 1 + best(i + 1));
      used[j] = false;
    }
    return top;
  };
  return best(0);
}
