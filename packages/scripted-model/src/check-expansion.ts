// yaml's toJS hands every alias the same JS value as its anchor, so a parsed script is a graph, not a tree: a few
// lines can stand for 10^9 lists (which a recursive walk, a digest or JSON.stringify would each expand), a list can
// contain itself, and chained anchors nest far past the ~780 levels the parser takes as a literal. This walk visits
// each distinct value once, without recursion, and measures the tree the graph stands for.

/** Why a parsed script cannot be expanded into the tree its aliases stand for. */
export type ExpansionDefect =
  | { readonly kind: "cycle"; readonly path: readonly PropertyKey[] }
  | { readonly kind: "too-large"; readonly maxBytes: number }
  | { readonly kind: "too-deep"; readonly path: readonly PropertyKey[]; readonly maxDepth: number };

/** The bounds {@link findExpansionDefect} holds a value to. */
export interface ExpansionLimits {
  /** Most JSON text (in UTF-16 units, escapes not counted) the expanded value may take. */
  readonly maxBytes: number;
  /** Most arrays/objects the expanded value may nest (the root is level 1). */
  readonly maxDepth: number;
  /** How many leading keys of a too-deep chain to report (the chain itself may be thousands long). */
  readonly pathKeys: number;
}

interface Measure {
  readonly bytes: number;
  readonly height: number;
}

interface Frame {
  readonly value: object;
  readonly key: PropertyKey;
  readonly keys: readonly string[] | null;
  readonly children: readonly unknown[];
  index: number;
  bytes: number;
  height: number;
}

function isContainer(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function leafBytes(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number" || typeof value === "boolean") return String(value).length;
  // null and anything the schema refuses anyway (Uint8Array, Date, Map) count as a small token.
  return 4;
}

function open(value: object, key: PropertyKey): Frame {
  const keys = Array.isArray(value) ? null : Object.keys(value);
  const children = keys === null ? (value as unknown[]) : keys.map((name) => (value as Record<string, unknown>)[name]);
  return { value, key, keys, children, index: 0, bytes: 2, height: 1 };
}

// A chain deeper than the bound can end in a value measured earlier: follow its tallest children for the path.
function extendPath(path: PropertyKey[], value: object, measured: WeakMap<object, Measure>, want: number): PropertyKey[] {
  let current: unknown = value;
  while (path.length < want && isContainer(current)) {
    const frame = open(current, "");
    const height = measured.get(current)?.height ?? 0;
    const next = frame.children.findIndex((child) => isContainer(child) && (measured.get(child)?.height ?? 0) === height - 1);
    if (next < 0) break;
    path.push(frame.keys === null ? next : (frame.keys[next] ?? ""));
    current = frame.children[next];
  }
  return path;
}

/**
 * The first reason `value` (as yaml's toJS returns it, aliases shared) cannot be expanded within `limits`: a cycle, more
 * than `maxBytes` of JSON, or more than `maxDepth` levels. Visits each distinct array/object once and never recurses, so
 * a 10^9-node expansion is refused in the time its few source lines take.
 */
export function findExpansionDefect(value: unknown, limits: ExpansionLimits): ExpansionDefect | null {
  if (!isContainer(value)) return leafBytes(value) > limits.maxBytes ? { kind: "too-large", maxBytes: limits.maxBytes } : null;
  const measured = new WeakMap<object, Measure>();
  const onPath = new WeakSet<object>();
  const stack: Frame[] = [open(value, "")];
  onPath.add(value);
  const pathHere = (extra: readonly PropertyKey[]): PropertyKey[] => [...stack.slice(1).map((frame) => frame.key), ...extra];
  const tooDeep = (path: PropertyKey[]): ExpansionDefect => ({ kind: "too-deep", path: path.slice(0, limits.pathKeys), maxDepth: limits.maxDepth });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.index === frame.children.length) {
      stack.pop();
      onPath.delete(frame.value);
      measured.set(frame.value, { bytes: frame.bytes, height: frame.height });
      const parent = stack[stack.length - 1];
      if (parent !== undefined) {
        parent.bytes += frame.bytes;
        parent.height = Math.max(parent.height, frame.height + 1);
        if (parent.bytes > limits.maxBytes) return { kind: "too-large", maxBytes: limits.maxBytes };
      }
      continue;
    }
    const at = frame.index;
    frame.index += 1;
    const child = frame.children[at];
    const key = frame.keys === null ? at : (frame.keys[at] ?? "");
    // A comma before every member but the first, and `"key":` before an object's.
    frame.bytes += (at > 0 ? 1 : 0) + (typeof key === "string" ? key.length + 3 : 0);
    if (!isContainer(child)) {
      if (child !== undefined) frame.bytes += leafBytes(child);
    } else if (onPath.has(child)) {
      return { kind: "cycle", path: pathHere([key]) };
    } else {
      const known = measured.get(child);
      if (known !== undefined) {
        if (stack.length + known.height > limits.maxDepth) return tooDeep(extendPath(pathHere([key]), child, measured, limits.pathKeys));
        frame.bytes += known.bytes;
        frame.height = Math.max(frame.height, known.height + 1);
      } else {
        if (stack.length + 1 > limits.maxDepth) return tooDeep(pathHere([key]));
        onPath.add(child);
        stack.push(open(child, key));
      }
    }
    if (frame.bytes > limits.maxBytes) return { kind: "too-large", maxBytes: limits.maxBytes };
  }
  return null;
}
