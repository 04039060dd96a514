import { casefoldPython } from "@wfbench/pycompat";
import { listContentBlocks, readContentText } from "./content-blocks.js";
import { countToolUses } from "./count-tool-uses.js";
import { EvidenceOptionsError, truncateForMessage, type EvidenceRejection, type EvidenceRejectionCode } from "./errors.js";
import { normalizeSkillName } from "./normalize-skill-name.js";
import type { ParsedEvidenceStream } from "./parse-evidence-stream.js";
import { TOOL_ID_PATTERN, isJsonObject, type StreamEvent } from "./schema.js";

/** What the parent-captured stream proves about one expected skill. */
export interface SkillProof {
  /** The expected skill after normalisation. */
  readonly expectedSkill: string;
  /** true: a matching Skill request got a non-error result later; false: none did; null: unverifiable. */
  readonly skillInvoked: boolean | null;
  readonly status: "proven" | "not-invoked" | "unverifiable";
  /** Why the evidence is unverifiable (empty unless `skillInvoked` is null). */
  readonly diagnostics: readonly EvidenceRejection[];
  readonly matchingRequests: number;
  /** Matching requests made inside a subagent (non-null `parent_tool_use_id`); they count as invocations, as in the spec. */
  readonly subagentSkillRequests: number;
  readonly successfulResults: number;
  readonly erroredResults: number;
  /** `init.skills[]` as listed (strings only); null when the stream has no init event or no list. */
  readonly initSkills: readonly string[] | null;
  /** The expected skill appears in `init.skills[]` (discovery, not invocation); null without a list. */
  readonly discovered: boolean | null;
  /** A successful result's `tool_use_result.commandName` names the expected skill (cross-check, not required). */
  readonly commandNameConfirmed: boolean;
  /** A synthetic `Base directory for this skill:` message followed a successful result (cross-check, not required). */
  readonly skillBodyInjected: boolean;
  readonly toolUseCounts: Readonly<Record<string, number>>;
  readonly gitnexusToolUses: number;
  readonly subagentToolUses: number;
}

interface SkillRequest {
  readonly id: string;
  readonly index: number;
  readonly subagent: boolean;
}

interface ToolResult {
  readonly index: number;
  readonly isError: boolean;
}

const MAX_DIAGNOSTICS = 20;
const SKILL_INPUT_FIELDS = ["skill", "command", "name"] as const;
const SKILL_BODY_PREFIX = "Base directory for this skill:";

function findInitSkills(events: readonly StreamEvent[]): readonly string[] | null {
  const init = events.find((event) => event.type === "system" && event["subtype"] === "init");
  const skills = init?.["skills"];
  if (!Array.isArray(skills)) return null;
  return skills.filter((skill): skill is string => typeof skill === "string");
}

/**
 * Proves (or not) that the session invoked `expectedSkill` through the Skill tool, from the evidence window only.
 * Trusts only tool_use/tool_result pairs with valid unique ids where the result comes in a strictly later event;
 * refuses to answer (null + diagnostics) on bad ids, a request without a result, or a result before its request.
 * A skill typed as `/name` in the prompt leaves no tool_use, so it is reported as not invoked.
 * @throws {EvidenceOptionsError} when `expectedSkill` normalises to nothing.
 */
export function proveSkillUse(stream: ParsedEvidenceStream, expectedSkill: string): SkillProof {
  const expected = normalizeSkillName(expectedSkill);
  if (expected === "") throw new EvidenceOptionsError(`expected skill ${JSON.stringify(truncateForMessage(expectedSkill))} is empty after normalisation`);
  const { events, eventLines } = stream;
  const diagnostics: EvidenceRejection[] = [];
  const note = (code: EvidenceRejectionCode, message: string, index: number | null): void => {
    if (diagnostics.length < MAX_DIAGNOSTICS) diagnostics.push({ code, message, line: index === null ? null : (eventLines[index] ?? null) });
  };
  const requestIds = new Set<string>();
  const matches: SkillRequest[] = [];
  const results = new Map<string, ToolResult>();

  events.forEach((event, index) => {
    for (const block of listContentBlocks(event)) {
      if (block["type"] === "tool_use") {
        const id = block["id"];
        if (typeof id !== "string" || !TOOL_ID_PATTERN.test(id)) {
          note("EVIDENCE_TOOL_USE_ID_INVALID", "tool_use block without a valid id", index);
          continue;
        }
        if (requestIds.has(id)) {
          note("EVIDENCE_TOOL_USE_ID_DUPLICATE", `tool_use id ${id} appears twice`, index);
          continue;
        }
        requestIds.add(id);
        const name = block["name"];
        const input = block["input"];
        if (typeof name !== "string" || casefoldPython(name) !== "skill" || !isJsonObject(input)) continue;
        const named = SKILL_INPUT_FIELDS.some((field) => {
          const value = input[field];
          return typeof value === "string" && normalizeSkillName(value) === expected;
        });
        if (named) matches.push({ id, index, subagent: event["parent_tool_use_id"] !== undefined && event["parent_tool_use_id"] !== null });
      } else if (block["type"] === "tool_result") {
        // Only the CLI writes user events; a tool_result anywhere else was written by the model (or forged) and would
        // let it answer its own Skill request. It still takes part in the id checks below.
        if (event.type !== "user") note("EVIDENCE_TOOL_RESULT_OUTSIDE_USER_EVENT", "tool_result block outside a user event", index);
        const id = block["tool_use_id"];
        if (typeof id !== "string" || !TOOL_ID_PATTERN.test(id)) {
          note("EVIDENCE_TOOL_RESULT_ID_INVALID", "tool_result block without a valid tool_use_id", index);
          continue;
        }
        if (results.has(id)) {
          note("EVIDENCE_TOOL_RESULT_ID_DUPLICATE", `tool_result for ${id} appears twice`, index);
          continue;
        }
        const isError = block["is_error"];
        if (isError !== undefined && typeof isError !== "boolean") {
          note("EVIDENCE_TOOL_RESULT_IS_ERROR_INVALID", `tool_result for ${id} has a non-boolean is_error`, index);
          continue;
        }
        results.set(id, { index, isError: isError === true });
      }
    }
  });

  let successfulResults = 0;
  let erroredResults = 0;
  let commandNameConfirmed = false;
  let skillBodyInjected = false;
  for (const match of matches) {
    const result = results.get(match.id);
    if (result === undefined) {
      note("EVIDENCE_SKILL_RESULT_MISSING", `Skill request ${match.id} has no tool_result`, match.index);
      continue;
    }
    if (result.index <= match.index) {
      note("EVIDENCE_SKILL_RESULT_BEFORE_REQUEST", `tool_result for Skill request ${match.id} is not in a later event`, result.index);
      continue;
    }
    if (result.isError) {
      erroredResults += 1;
      continue;
    }
    const resultEvent = events[result.index];
    // The CLI's top-level echo describes the event's tool result only when the event carries exactly one.
    const echo = resultEvent !== undefined && countToolResults(resultEvent) === 1 ? resultEvent["tool_use_result"] : undefined;
    const commandName = isJsonObject(echo) ? echo["commandName"] : undefined;
    // The input may name the skill in several fields; the CLI's own echo says which one it launched. A disagreement
    // (e.g. `{skill: "other", name: "<expected>"}` launching "other") is not proof of the expected skill.
    if (isJsonObject(echo) && (echo["success"] === false || (typeof commandName === "string" && normalizeSkillName(commandName) !== expected))) {
      note("EVIDENCE_SKILL_RESULT_CONTRADICTED", `the CLI's echo for Skill request ${match.id} names another skill or a failed launch`, result.index);
      continue;
    }
    successfulResults += 1;
    if (typeof commandName === "string") commandNameConfirmed = true;
    if (events.slice(result.index + 1).some(isSkillBodyMessage)) skillBodyInjected = true;
  }

  const initSkills = findInitSkills(events);
  const discovered = initSkills === null ? null : initSkills.some((skill) => normalizeSkillName(skill) === expected);
  const counts = countToolUses(events);
  const unverifiable = diagnostics.length > 0;
  const skillInvoked = unverifiable ? null : successfulResults > 0;
  return {
    expectedSkill: expected,
    skillInvoked,
    status: skillInvoked === null ? "unverifiable" : skillInvoked ? "proven" : "not-invoked",
    diagnostics,
    matchingRequests: matches.length,
    subagentSkillRequests: matches.filter((match) => match.subagent).length,
    successfulResults,
    erroredResults,
    initSkills,
    discovered,
    commandNameConfirmed,
    skillBodyInjected,
    ...counts,
  };
}

function countToolResults(event: StreamEvent): number {
  return listContentBlocks(event).filter((block) => block["type"] === "tool_result").length;
}

function isSkillBodyMessage(event: StreamEvent): boolean {
  return event.type === "user" && event["isSynthetic"] === true && readContentText(event).startsWith(SKILL_BODY_PREFIX);
}
