import { readFile } from "node:fs/promises";
import { listJsonGraphDefects, type JsonGraphDefect } from "@wfbench/digest";
import { formatIssuePath } from "@wfbench/pycompat";
import { parseDocument, visit, type Document } from "yaml";
import type { z } from "zod";
import { ScriptSchema, type Script } from "./schema.js";
import { LEVELS_ABOVE_TOOL_INPUT, MAX_EXPANDED_SCRIPT_BYTES, MAX_TOOL_INPUT_DEPTH, MAX_YAML_ALIASES } from "./script-limits.js";

/** One reason a script was refused: the field path (`trajectories[0].turns[1].usage`) and what is wrong there. */
export interface ScriptIssue {
  readonly path: string;
  readonly message: string;
}

/** Why a script file was refused; `file` is the path or source name it came from. */
export interface ScriptRefusal {
  readonly kind: "unreadable" | "syntax" | "schema";
  readonly file: string;
  readonly issues: readonly ScriptIssue[];
  /** One multi-line human message naming the file and each field path. */
  readonly message: string;
}

/** A parsed script, or the refusal naming the file and the field paths. */
export type ScriptLoadResult = { ok: true; value: Script } | { ok: false; error: ScriptRefusal };

function refuse(kind: ScriptRefusal["kind"], file: string, issues: ScriptIssue[]): ScriptLoadResult {
  const lines = issues.map((issue) => `  - ${issue.path}: ${issue.message}`);
  const message = `scripted-model: refused script ${file}:\n${lines.join("\n")}`;
  return { ok: false, error: { kind, file, issues, message } };
}

function describeZodIssues(issues: readonly z.core.$ZodIssue[]): ScriptIssue[] {
  return issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }));
}

// Checks the schema cannot express: names must be unique, regexes must compile, tool ids must not repeat.
function checkCrossFields(script: Script): ScriptIssue[] {
  const issues: ScriptIssue[] = [];
  const names = new Map<string, number>();
  script.trajectories.forEach((trajectory, t) => {
    const previous = names.get(trajectory.name);
    if (previous !== undefined) {
      issues.push({
        path: `trajectories[${t}].name`,
        message: `duplicate trajectory name "${trajectory.name}" (also trajectories[${previous}])`,
      });
    } else {
      names.set(trajectory.name, t);
    }
    if (trajectory.match.regex !== undefined) {
      try {
        new RegExp(trajectory.match.regex, "u");
      } catch (error) {
        issues.push({
          path: `trajectories[${t}].match.regex`,
          message: `invalid regular expression: ${(error as Error).message}`,
        });
      }
    }
    const ids = new Map<string, string>();
    trajectory.turns.forEach((turn, n) => {
      turn.faults.forEach((fault, f) => {
        if (fault.kind !== "stream_error" || fault.after_blocks <= turn.content.length) return;
        issues.push({
          path: `trajectories[${t}].turns[${n}].faults[${f}].after_blocks`,
          message: `after_blocks is ${fault.after_blocks} but the turn has ${turn.content.length} content block(s)`,
        });
      });
      turn.content.forEach((block, b) => {
        if (block.type !== "tool_use" || block.id === undefined) return;
        const here = `trajectories[${t}].turns[${n}].content[${b}].id`;
        const seen = ids.get(block.id);
        if (seen !== undefined) issues.push({ path: here, message: `duplicate tool_use id "${block.id}" (also ${seen})` });
        else ids.set(block.id, here);
      });
    });
  });
  return issues;
}

// yaml catches its own stack overflow on a deep literal and reports it as RESOURCE_EXHAUSTION with V8's message, which
// names neither the cause nor the way out.
function describeYamlError(error: { code: string; message: string }): string {
  const first = error.message.split("\n")[0] ?? error.code;
  if (error.code !== "RESOURCE_EXHAUSTION") return first;
  return (
    "a literal here nests too deeply for the YAML parser (it takes about 780 levels); nest it less, or build the depth " +
    `from anchors and aliases (a tool input may nest ${MAX_TOOL_INPUT_DEPTH.toLocaleString("en-US")} levels)`
  );
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

const MiB = 1024 * 1024;

function describeExpansionDefect(defect: JsonGraphDefect, sourceName: string): ScriptLoadResult | null {
  switch (defect.kind) {
    case "cycle":
      return refuse("syntax", sourceName, [
        {
          path: formatIssuePath(defect.path),
          message: "this alias refers to a collection that contains itself, so the value would be infinite; alias only a collection that has ended",
        },
      ]);
    case "too-large":
      return refuse("syntax", sourceName, [
        {
          path: "(document)",
          message:
            `the YAML expands to more than ${defect.maxBytes / MiB} MiB of JSON once its aliases are copied out (the server refuses ` +
            "request bodies past that, and the CLI sends every tool input back); alias smaller values, or fewer times",
        },
      ]);
    case "too-deep":
      return refuse("schema", sourceName, [
        {
          path: formatIssuePath(defect.path),
          message:
            `nests more than ${(defect.maxDepth - defect.path.length).toLocaleString("en-US")} levels (this value is level 1): ` +
            "a reply carries it through JSON.stringify, and both that and the pinned CLI stop near 4,100; nest it less deeply",
        },
      ]);
    default:
      // Bad numbers, non-JSON values and "__proto__" keys are the schema's to report, with every path at once.
      return null;
  }
}

/**
 * Parses a YAML or JSON script text; trusts nothing in it and refuses with `sourceName` and each bad field path. Any
 * text is either loaded or refused: aliases are bounded in number and in what they expand to, nesting is bounded, and
 * nothing here recurses over the value.
 */
export function parseScript(text: string, sourceName: string): ScriptLoadResult {
  let document: Document.Parsed;
  let aliases: number;
  try {
    document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
    aliases = document.errors.length > 0 ? 0 : countAliases(document);
  } catch (error) {
    // yaml reports its own failures as document errors; should anything still throw (visit recurses), it is a refusal.
    return refuse("syntax", sourceName, [{ path: "(document)", message: `cannot parse the YAML: ${(error as Error).message}` }]);
  }
  if (document.errors.length > 0) {
    return refuse(
      "syntax",
      sourceName,
      document.errors.map((error) => ({
        path: error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : "(document)",
        message: describeYamlError(error),
      })),
    );
  }
  if (aliases > MAX_YAML_ALIASES) {
    const message = `the YAML holds ${aliases} aliases, more than the ${MAX_YAML_ALIASES.toLocaleString("en-US")} a script may (yaml rescans the file for each); write the values out or reuse fewer`;
    return refuse("syntax", sourceName, [{ path: "(document)", message }]);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // yaml throws (instead of reporting) when aliases expand past the bound: a resource-exhaustion guard.
    const reason = (error as Error).message;
    const fix = /alias count/i.test(reason) ? "; alias each anchor fewer times (yaml weighs an alias by the aliases inside what it names, and allows 100)" : "";
    return refuse("syntax", sourceName, [{ path: "(document)", message: `cannot expand the YAML: ${reason}${fix}` }]);
  }
  // yaml's bound counts an alias of an empty collection as 0, so it misses a 10^9-list bomb: measure what is left.
  // Only the structural defect that stops the walk (it is last) is refused here: bad numbers before it are left to
  // the schema, which names every one, but a cycle must never reach zod.
  const last = listJsonGraphDefects(value, {
    maxBytes: MAX_EXPANDED_SCRIPT_BYTES,
    maxDepth: LEVELS_ABOVE_TOOL_INPUT + MAX_TOOL_INPUT_DEPTH,
    pathKeys: LEVELS_ABOVE_TOOL_INPUT,
  }).at(-1);
  const refusal = last === undefined ? null : describeExpansionDefect(last, sourceName);
  if (refusal !== null) return refusal;
  const parsed = ScriptSchema.safeParse(value);
  if (!parsed.success) return refuse("schema", sourceName, describeZodIssues(parsed.error.issues));
  const crossIssues = checkCrossFields(parsed.data);
  if (crossIssues.length > 0) return refuse("schema", sourceName, crossIssues);
  return { ok: true, value: parsed.data };
}

/** Reads and parses a script file; an unreadable file is a refusal naming the path, never a throw. */
export async function loadScript(path: string): Promise<ScriptLoadResult> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown";
    return refuse("unreadable", path, [{ path: "(file)", message: `cannot read the file (${code})` }]);
  }
  return parseScript(text, path);
}
