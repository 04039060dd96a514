// The one walk over a value that is meant to be JSON data. It has to survive what callers hand it: JSON.parse output of
// any depth, and yaml's toJS output, where every alias is the same JS value as its anchor, so the value is a graph: a
// few lines can stand for 10^9 lists, a list can contain itself, and chained anchors nest far past what a recursive
// walk (or JSON.stringify) survives. So it never recurses, visits each distinct array/object once, and measures the
// tree the graph stands for.

/** A step from the root: an object key or an array index. */
export type JsonPathKey = string | number;

/** Why a value is not JSON data within the limits; `path` leads from the root to the place (the root for too-large). */
export type JsonGraphDefect =
  | { readonly kind: "cycle"; readonly path: readonly JsonPathKey[] }
  | { readonly kind: "too-large"; readonly path: readonly JsonPathKey[]; readonly maxBytes: number }
  | { readonly kind: "too-deep"; readonly path: readonly JsonPathKey[]; readonly maxDepth: number }
  | { readonly kind: "non-finite-number"; readonly path: readonly JsonPathKey[]; readonly value: number }
  | { readonly kind: "not-json-value"; readonly path: readonly JsonPathKey[] }
  | { readonly kind: "proto-key"; readonly path: readonly JsonPathKey[] };

/** What kinds of defect there are. */
export type JsonGraphDefectKind = JsonGraphDefect["kind"];

/** The bounds and rules {@link inspectJsonGraph} holds a value to. */
export interface JsonGraphLimits {
  /** Most arrays/objects the expanded value may nest (the root is level 1). */
  readonly maxDepth: number;
  /** Most JSON text (UTF-16 units, escapes not counted) the expanded value may take; omitted, size is not measured. */
  readonly maxBytes?: number;
  /** How many leading keys of a too-deep chain's path to report (it may be thousands long); omitted, all of them. */
  readonly pathKeys?: number;
  /**
   * Refuse what JSON cannot carry unchanged: `undefined`, functions, symbols, objects other than arrays and plain
   * objects, and an own `"__proto__"` key (zod's object copy drops it). Otherwise these are stepped over, unentered,
   * as JSON.stringify drops or converts them; a bigint (which JSON.stringify throws on) is refused either way.
   */
  readonly strict?: boolean;
  /**
   * Trust `value` to be a tree (JSON.parse output: nothing shared, no cycles) and skip the per-value bookkeeping that
   * finds both, about half the walk's cost. A shared value is then measured at each place; a cycle is still refused,
   * as too deep, so `maxDepth` must be finite.
   */
  readonly tree?: boolean;
}

interface Frame {
  readonly value: object;
  readonly key: JsonPathKey;
  readonly keys: readonly string[] | null;
  readonly length: number;
  index: number;
  bytes: number;
  height: number;
}

function isContainer(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function open(value: object, key: JsonPathKey): Frame {
  const keys = Array.isArray(value) ? null : Object.keys(value);
  return { value, key, keys, length: keys === null ? (value as unknown[]).length : keys.length, index: 0, bytes: 2, height: 1 };
}

function childAt(frame: Frame, at: number): unknown {
  return frame.keys === null ? (frame.value as unknown[])[at] : (frame.value as Record<string, unknown>)[frame.keys[at] as string];
}

function leafBytes(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number" || typeof value === "boolean") return String(value).length;
  // null, and what strict mode refuses anyway, count as a small token.
  return 4;
}

// The defect of a value that is not an array or plain object, or null when it is fine as a leaf.
function leafDefect(value: unknown, strict: boolean): "non-finite-number" | "not-json-value" | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : "non-finite-number";
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "bigint") return "not-json-value";
  return strict ? "not-json-value" : null;
}

// A chain deeper than the bound can end in a value measured earlier: follow its tallest children for the path.
function extendPath(path: JsonPathKey[], value: object, finished: ReadonlyMap<object, Frame | null>, want: number): JsonPathKey[] {
  let current: unknown = value;
  while (path.length < want && isContainer(current)) {
    const frame = open(current, "");
    const height = finished.get(current)?.height ?? 0;
    let next = -1;
    for (let at = 0; at < frame.length && next < 0; at += 1) {
      const child = childAt(frame, at);
      // Every child of a finished value is finished too, or empty (height 1, never entered in the map).
      if (isContainer(child) && (finished.get(child)?.height ?? 1) === height - 1) next = at;
    }
    if (next < 0) break;
    path.push(frame.keys === null ? next : (frame.keys[next] as string));
    current = childAt(frame, next);
  }
  return path;
}

// The walk behind both exports: calls `report` with each value defect in document order and goes on while it returns
// true; returns the structural defect (cycle, too-large, too-deep) that ended it, or null.
function walk(value: unknown, limits: JsonGraphLimits, report: (defect: JsonGraphDefect) => boolean): JsonGraphDefect | null {
  const strict = limits.strict === true;
  const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  // Counting bytes costs a number-to-text conversion per number, so it is skipped when nothing bounds the size.
  const countBytes = limits.maxBytes !== undefined;
  const pathKeys = limits.pathKeys ?? Number.POSITIVE_INFINITY;
  const clip = (path: JsonPathKey[]): JsonPathKey[] => (path.length > pathKeys ? path.slice(0, pathKeys) : path);
  const tooLarge: JsonGraphDefect = { kind: "too-large", path: [], maxBytes };
  const valueDefect = (kind: "non-finite-number" | "not-json-value", leaf: unknown, path: () => JsonPathKey[]): boolean =>
    report(kind === "non-finite-number" ? { kind, path: path(), value: leaf as number } : { kind, path: path() });

  if (!isContainer(value)) {
    const kind = leafDefect(value, strict);
    if (kind !== null && !valueDefect(kind, value, () => [])) return null;
    return countBytes && leafBytes(value) > maxBytes ? tooLarge : null;
  }
  if (limits.maxDepth < 1) return { kind: "too-deep", path: [], maxDepth: limits.maxDepth };
  // One map entry per distinct non-empty array/object: null while the walk is inside it, then its finished frame. A
  // hit is a cycle (null) or a shared value, which is measured from its frame instead of walked again.
  const finished = limits.tree === true && Number.isFinite(limits.maxDepth) ? null : new Map<object, Frame | null>([[value, null]]);
  const stack: Frame[] = [open(value, "")];
  const pathHere = (key: JsonPathKey): JsonPathKey[] => {
    const path = stack.slice(1).map((frame) => frame.key);
    path.push(key);
    return path;
  };
  const tooDeep = (path: JsonPathKey[]): JsonGraphDefect => ({ kind: "too-deep", path: clip(path), maxDepth: limits.maxDepth });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.index === frame.length) {
      stack.pop();
      finished?.set(frame.value, frame);
      const parent = stack[stack.length - 1];
      if (parent !== undefined) {
        parent.bytes += frame.bytes;
        if (frame.height >= parent.height) parent.height = frame.height + 1;
        if (parent.bytes > maxBytes) return tooLarge;
      }
      continue;
    }
    const at = frame.index;
    frame.index += 1;
    const key: JsonPathKey = frame.keys === null ? at : (frame.keys[at] as string);
    const child = frame.keys === null ? (frame.value as unknown[])[at] : (frame.value as Record<string, unknown>)[key];
    // A comma before every member but the first, and `"key":` before an object's.
    if (countBytes) frame.bytes += (at > 0 ? 1 : 0) + (typeof key === "string" ? key.length + 3 : 0);
    if (strict && key === "__proto__") {
      if (!report({ kind: "proto-key", path: pathHere(key) })) return null;
      continue;
    }
    if (typeof child === "string") {
      if (countBytes) frame.bytes += child.length + 2;
    } else if (!isContainer(child)) {
      const kind = leafDefect(child, strict);
      if (kind !== null && !valueDefect(kind, child, () => pathHere(key))) return null;
      if (countBytes && child !== undefined) frame.bytes += leafBytes(child);
    } else {
      const known = finished?.get(child);
      if (known === undefined) {
        if (stack.length + 1 > limits.maxDepth) return tooDeep(pathHere(key));
        const opened = open(child, key);
        if (opened.length === 0) {
          // An empty array/object can hold no cycle and measures the same everywhere: no entry, no frame (most of an
          // empty-list alias bomb, and of a flat list of them, is these).
          frame.bytes += 2;
          if (frame.height < 2) frame.height = 2;
        } else {
          finished?.set(child, null);
          stack.push(opened);
        }
      } else if (known === null) {
        return { kind: "cycle", path: pathHere(key) };
      } else {
        if (stack.length + known.height > limits.maxDepth) return tooDeep(extendPath(pathHere(key), child, finished as ReadonlyMap<object, Frame | null>, pathKeys));
        frame.bytes += known.bytes;
        if (known.height >= frame.height) frame.height = known.height + 1;
      }
    }
    if (frame.bytes > maxBytes) return tooLarge;
  }
  return null;
}

/**
 * The first reason `value` is not JSON data within `limits`, in document order, or null. Trusts nothing in `value`
 * (JSON.parse or yaml toJS output, aliases shared, cycles possible) unless `limits.tree` says it is a tree; never
 * recurses and visits each distinct array/object once, so a 10^9-node alias graph or a 10^6-level chain is refused in
 * the time its distinct values take.
 */
export function inspectJsonGraph(value: unknown, limits: JsonGraphLimits): JsonGraphDefect | null {
  const found: JsonGraphDefect[] = [];
  const structural = walk(value, limits, (defect) => {
    found.push(defect);
    return false;
  });
  return found[0] ?? structural;
}

/**
 * Every value defect of `value` (non-finite number, not a JSON value, `"__proto__"` key) in document order, each
 * shared value's once, then the structural one (cycle, too large, too deep) that stopped the walk, if any. Trusts
 * nothing in `value`; the same walk as {@link inspectJsonGraph}, for callers that report all issues at once.
 */
export function listJsonGraphDefects(value: unknown, limits: JsonGraphLimits): JsonGraphDefect[] {
  const found: JsonGraphDefect[] = [];
  const structural = walk(value, limits, (defect) => {
    found.push(defect);
    return true;
  });
  if (structural !== null) found.push(structural);
  return found;
}
