import { listJsonGraphDefects, type JsonGraphDefect } from "@wfbench/digest";
import { formatIssuePath } from "@wfbench/pycompat";
import { YAMLError, parseDocument, visit, type Document } from "yaml";

// The bounds a task file is held to before its schema. Each is far above what a suite needs (the shipped ones are a few
// KB, a few levels deep, with no aliases) and below where parsing it stops being cheap.

/**
 * Most bytes a task file may hold (the shipped suites are 4-12 KB). yaml's parser is the cost: measured on Node 20, a
 * 256 KiB file of flow lists takes 0.8-2.3 s and ~140 MB, a 1 MiB one 4-10 s and 350-600 MB.
 */
export const MAX_TASK_FILE_BYTES = 256 * 1024;

/** Most aliases a task file may hold: yaml rescans the document for every alias it resolves (quadratic time). */
export const MAX_TASK_FILE_ALIASES = 1_000;

/** Most JSON text a task file may stand for once its aliases are copied out (everything after parsing walks the copy). */
export const MAX_EXPANDED_TASK_FILE_BYTES = 8 * 1024 * 1024;

/** Deepest a task file may nest (the document is level 1; the format itself needs five). */
export const MAX_TASK_FILE_DEPTH = 64;

const MiB = 1024 * 1024;

/** A parsed task file, or why it was refused: the field (document path), what is wrong and the fix. */
export type SuiteYamlResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly field: string; readonly message: string; readonly fix: string };

const SYNTAX_FIX = "correct the YAML syntax at that line (indentation, an unclosed bracket or quote, a duplicate key)";

/** The parser's reason and where it stopped (`line L, column C`), without its multi-line code frame. */
function describeYamlError(cause: unknown): string {
  if (!(cause instanceof YAMLError)) return (cause as Error).message.split("\n")[0] ?? "parse error";
  const reason = cause.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/u, "") ?? "parse error";
  const at = cause.linePos?.[0];
  return at === undefined ? reason : `line ${at.line}, column ${at.col}: ${reason}`;
}

// Counted before toJS because yaml resolves each alias by scanning every anchor and alias before it.
function countAliases(document: Document): number {
  let count = 0;
  visit(document, {
    Alias() {
      count += 1;
    },
  });
  return count;
}

function describeStructuralDefect(defect: JsonGraphDefect): SuiteYamlResult | null {
  switch (defect.kind) {
    case "cycle":
      return { ok: false, field: formatIssuePath(defect.path), message: "is an alias of a collection that contains itself, so the value would be infinite", fix: "alias only a collection that has ended, or write the value out" };
    case "too-large":
      return {
        ok: false,
        field: "tasks",
        message: `the YAML expands to more than ${defect.maxBytes / MiB} MiB of data once its aliases are copied out`,
        fix: "alias smaller values, or fewer times (a suite needs no aliases at all)",
      };
    case "too-deep":
      return { ok: false, field: formatIssuePath(defect.path), message: `nests more than ${defect.maxDepth} levels`, fix: "nest it less deeply: a task file needs five levels" };
    default:
      // A bad number or odd value is the schema's to report, with its field.
      return null;
  }
}

/**
 * Parses task-file YAML into plain data, trusting nothing in `text`: refuses text over MAX_TASK_FILE_BYTES before
 * parsing, a syntax error, more than MAX_TASK_FILE_ALIASES aliases before resolving them, and a value whose aliases
 * expand past MAX_EXPANDED_TASK_FILE_BYTES, nest past MAX_TASK_FILE_DEPTH or contain themselves. Never recurses over
 * the value and never prints (yaml's warnings are dropped, as parse() would only log them).
 */
export function parseSuiteYaml(text: string): SuiteYamlResult {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_TASK_FILE_BYTES) return oversize(bytes);
  let document: Document.Parsed;
  let aliases: number;
  try {
    document = parseDocument(text, { uniqueKeys: true });
    aliases = document.errors.length > 0 ? 0 : countAliases(document);
  } catch (cause) {
    return { ok: false, field: "tasks", message: `not valid YAML (${describeYamlError(cause)})`, fix: SYNTAX_FIX };
  }
  const [error] = document.errors;
  // A syntax error is not a schema error: name where the parser stopped, not the shape of the top level.
  if (error !== undefined) return { ok: false, field: "tasks", message: `not valid YAML (${describeYamlError(error)})`, fix: SYNTAX_FIX };
  if (aliases > MAX_TASK_FILE_ALIASES) {
    return {
      ok: false,
      field: "tasks",
      message: `the YAML holds ${aliases.toLocaleString("en-US")} aliases, more than the ${MAX_TASK_FILE_ALIASES.toLocaleString("en-US")} a task file may (yaml rescans the file for each)`,
      fix: "write the values out, or reuse fewer anchors",
    };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    // yaml throws (instead of reporting) when aliases weigh past its bound: a resource-exhaustion guard.
    return { ok: false, field: "tasks", message: `not valid YAML (${describeYamlError(cause)})`, fix: SYNTAX_FIX };
  }
  // yaml's bound weighs an alias of an empty collection as 0, so it misses a 10^9-list bomb: measure what is left. The
  // structural defect that stops the walk is last; bad numbers before it are left to the schema.
  const last = listJsonGraphDefects(value, { maxBytes: MAX_EXPANDED_TASK_FILE_BYTES, maxDepth: MAX_TASK_FILE_DEPTH, pathKeys: MAX_TASK_FILE_DEPTH }).at(-1);
  const refusal = last === undefined ? null : describeStructuralDefect(last);
  return refusal ?? { ok: true, value };
}

/** The refusal of a task file of `bytes` bytes, over MAX_TASK_FILE_BYTES (shared by the text and the file check). */
export function oversize(bytes: number): SuiteYamlResult & { readonly ok: false } {
  return {
    ok: false,
    field: "tasks",
    message: `the task file is ${bytes.toLocaleString("en-US")} bytes, more than the ${MAX_TASK_FILE_BYTES / 1024} KiB a task file may hold (the YAML parser needs seconds and hundreds of MB for a MiB)`,
    fix: "split the suite into several task files, or keep long text in the task's repository",
  };
}
