import { readFile } from "node:fs/promises";
import { formatIssuePath } from "@wfbench/pycompat";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { ScriptSchema, type Script } from "./schema.js";

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

/** Parses a YAML or JSON script text; trusts nothing in it and refuses with `sourceName` and each bad field path. */
export function parseScript(text: string, sourceName: string): ScriptLoadResult {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return refuse(
      "syntax",
      sourceName,
      document.errors.map((error) => ({
        path: error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : "(document)",
        message: error.message.split("\n")[0] ?? error.code,
      })),
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // yaml throws (instead of reporting) when aliases expand past the bound: a resource-exhaustion guard.
    return refuse("syntax", sourceName, [{ path: "(document)", message: `cannot expand the YAML: ${(error as Error).message}` }]);
  }
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
