import { formatIssuePath } from "@wfbench/pycompat";
import type { z } from "zod";
import { REVIEW_LABELS_TARGET } from "./limits.js";
import { OracleDeclarationSchema } from "./schema.js";
import type { OracleDeclaration, OracleDeclarationRule } from "./schema.js";

/** One broken rule: the field is spelt as in the task file (`oracle.files[1].target`). */
export interface OracleDeclarationIssue {
  readonly field: string;
  readonly rule: OracleDeclarationRule;
  readonly message: string;
}

/** Why a task's oracle declaration was refused; `message` names the task, the first field and its rule. */
export interface OracleDeclarationRefusal {
  readonly task: string;
  readonly issues: readonly OracleDeclarationIssue[];
  readonly message: string;
}

/** Whether the task is scored by hidden labels (review) or by a hidden test command (implementation). */
export type OracleTaskKind = "implementation" | "review";

/** Result of validating an oracle declaration. */
export type ValidateOracleDeclarationResult =
  | { readonly ok: true; readonly value: OracleDeclaration }
  | { readonly ok: false; readonly error: OracleDeclarationRefusal };

const ECHO_LIMIT = 200;

function lookup(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

function ruleOf(issue: z.core.$ZodIssue, input: unknown): OracleDeclarationRule {
  if (issue.code === "custom") {
    const rule: unknown = issue.params?.["rule"];
    if (typeof rule === "string") return rule as OracleDeclarationRule;
  }
  if (issue.code === "unrecognized_keys") return "unknown-key";
  if (issue.code === "invalid_value") return "mode-unknown";
  if (issue.code === "too_small" || issue.code === "too_big") return "files-count";
  if (issue.code === "invalid_type") {
    if (issue.path.length > 0 && lookup(input, issue.path) === undefined) return "missing-key";
    if (issue.expected === "string") return "not-a-string";
    if (issue.expected === "array") return "not-a-list";
  }
  return "not-a-mapping";
}

function messageOf(issue: z.core.$ZodIssue, rule: OracleDeclarationRule): string {
  if (rule === "missing-key") return "is required";
  if (issue.code === "unrecognized_keys")
    return `has unknown key(s) ${issue.keys.map((key) => JSON.stringify(key.slice(0, ECHO_LIMIT))).join(", ")}`;
  return issue.message.slice(0, ECHO_LIMIT);
}

/**
 * Validates a task's `oracle` mapping (untrusted YAML data). Trusts nothing in `raw`; refuses anything but `command`
 * + 1..8 `files` of clean relative paths (+ optional `mode`, and `candidate` exactly for `mode: black-box`), and for
 * review tasks anything but one `review-labels.json` target and the in-process mode.
 */
export function validateOracleDeclaration(
  taskId: string,
  raw: unknown,
  kind: OracleTaskKind = "implementation",
): ValidateOracleDeclarationResult {
  const parsed = OracleDeclarationSchema.safeParse(raw);
  const issues: OracleDeclarationIssue[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const rule = ruleOf(issue, raw);
      issues.push({ field: formatIssuePath(issue.path, "oracle"), rule, message: messageOf(issue, rule) });
    }
  } else if (kind === "review" && parsed.data.mode === "black-box") {
    // A review is scored against its labels, never by running a command; a candidate command would never run.
    issues.push({ field: "oracle.mode", rule: "review-black-box", message: "must not be 'black-box' for a review task" });
  } else if (kind === "review") {
    const labelTargets = parsed.data.files.filter((file) => file.target === REVIEW_LABELS_TARGET).length;
    if (labelTargets !== 1)
      issues.push({
        field: "oracle.files",
        rule: "review-labels-target",
        message: `a review task needs exactly one file with target '${REVIEW_LABELS_TARGET}'`,
      });
  }
  const first = issues[0];
  if (first === undefined && parsed.success) return { ok: true, value: parsed.data };
  const shownTask = taskId.slice(0, ECHO_LIMIT);
  const head = first ?? { field: "oracle", rule: "not-a-mapping", message: "is invalid" };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return {
    ok: false,
    error: {
      task: shownTask,
      issues,
      message: `task ${shownTask}: ${head.field} ${head.message} [rule ${head.rule}]${more}`,
    },
  };
}
