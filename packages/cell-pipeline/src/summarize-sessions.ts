import type { ResultRow } from "@wfbench/result-row";
import type { SessionRecord } from "./run-session.js";

/** The row fields `sum_sessions` produces (reference §4.2). */
export type SessionSums = Pick<
  ResultRow,
  | "input_tokens"
  | "cache_creation_input_tokens"
  | "cache_read_input_tokens"
  | "output_tokens"
  | "cost_usd"
  | "duration_s"
  | "num_turns"
  | "ok"
  | "session_ids"
  | "error_kind"
  | "error_detail"
  | "skill_invoked"
  | "transcript_missing"
  | "transcript_artifacts"
  | "evidence_diagnostics"
  | "gitnexus_tool_uses"
  | "tool_use_counts"
>;

function sumOrNull(values: readonly (number | null)[]): number | null {
  if (values.length === 0 || values.some((value) => value === null)) return null;
  return (values as number[]).reduce((total, value) => total + value, 0);
}

function round(value: number | null, digits: number): number | null {
  if (value === null) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * Folds a cell's sessions into row fields (reference §4.2): tokens and turns summed, cost rounded to 4 decimals and
 * null if any session's cost is unmeasured, duration rounded to 0.1, ok only if every session was, the first error kind
 * and detail, skill_invoked false if any session is false, else null if any is null, else true. An unmeasured token
 * count, tool tally or gitnexus count stays null rather than becoming 0 or {}.
 */
export function summarizeSessions(sessions: readonly SessionRecord[]): SessionSums {
  // One unmeasured session makes the cell's tally unmeasured: a partial sum would read as a full count.
  const measured = sessions.length > 0 && sessions.every((s) => s.toolUseCounts !== null);
  const toolUseCounts: Record<string, number> = {};
  for (const session of sessions) for (const [name, count] of Object.entries(session.toolUseCounts ?? {})) toolUseCounts[name] = (toolUseCounts[name] ?? 0) + count;
  const skill = sessions.map((s) => s.skillInvoked);
  const firstKind = sessions.find((s) => s.errorKind !== null);
  return {
    input_tokens: sumOrNull(sessions.map((s) => s.usage?.inputTokens ?? null)),
    cache_creation_input_tokens: sumOrNull(sessions.map((s) => s.usage?.cacheCreationInputTokens ?? null)),
    cache_read_input_tokens: sumOrNull(sessions.map((s) => s.usage?.cacheReadInputTokens ?? null)),
    output_tokens: sumOrNull(sessions.map((s) => s.usage?.outputTokens ?? null)),
    cost_usd: round(sumOrNull(sessions.map((s) => s.costUsd)), 4),
    duration_s: round(sumOrNull(sessions.map((s) => s.durationS)), 1),
    num_turns: sumOrNull(sessions.map((s) => s.numTurns)),
    ok: sessions.length > 0 && sessions.every((s) => s.ok),
    session_ids: sessions.map((s) => s.sessionId),
    error_kind: firstKind?.errorKind ?? null,
    error_detail: sessions.find((s) => s.errorDetail !== null)?.errorDetail ?? null,
    skill_invoked: skill.includes(false) ? false : skill.length === 0 || skill.includes(null) ? null : true,
    transcript_missing: sessions.some((s) => s.transcriptMissing),
    transcript_artifacts: sessions.flatMap((s) => (s.artifact === null ? [] : [s.artifact])),
    evidence_diagnostics: sessions.flatMap((s) => s.diagnostics),
    gitnexus_tool_uses: sumOrNull(sessions.map((s) => s.gitnexusToolUses)),
    tool_use_counts: measured ? toolUseCounts : null,
  };
}

/**
 * Tool uses per declared MCP server from a cell's tally (`mcp__<server>__<tool>` names; server names never hold `__`),
 * every declared server present; null when none is declared or the tally is unmeasured.
 */
export function countMcpToolUses(toolUseCounts: Readonly<Record<string, number>> | null, serverNames: readonly string[]): Record<string, number> | null {
  if (serverNames.length === 0 || toolUseCounts === null) return null;
  const counts = Object.fromEntries(serverNames.map((name) => [name, 0]));
  for (const [tool, count] of Object.entries(toolUseCounts)) {
    const server = /^mcp__(.+?)__/u.exec(tool)?.[1];
    if (server !== undefined && Object.hasOwn(counts, server)) counts[server] = (counts[server] ?? 0) + count;
  }
  return counts;
}
