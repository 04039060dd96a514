import { describe, expect, it } from "vitest";
import type { SessionRecord } from "./run-session.js";
import { summarizeSessions } from "./summarize-sessions.js";

function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    phase: "work",
    ok: true,
    errorKind: null,
    errorDetail: null,
    skillInvoked: true,
    transcriptMissing: false,
    diagnostics: [],
    sessionId: "s1",
    usage: { inputTokens: 100, cacheCreationInputTokens: 10, cacheReadInputTokens: 20, outputTokens: 5 },
    costUsd: 0.00012,
    durationS: 1.26,
    numTurns: 3,
    toolUseCounts: { Bash: 1 },
    gitnexusToolUses: 0,
    artifact: null,
    cancelled: false,
    streamEnd: "result",
    assistantMessageIds: [],
    modelUsageTokens: null,
    ownOutputBound: null,
    ...overrides,
  };
}

describe("summarizeSessions", () => {
  it("sums usage and turns, rounds cost to 4 and duration to 1 decimal, merges tool counts", () => {
    const sums = summarizeSessions([session({ phase: "plan", sessionId: "a" }), session({ sessionId: "b", toolUseCounts: { Bash: 2, Skill: 1 } })]);
    expect(sums).toMatchObject({ input_tokens: 200, cache_creation_input_tokens: 20, cache_read_input_tokens: 40, output_tokens: 10, cost_usd: 0.0002, duration_s: 2.5, num_turns: 6, ok: true, session_ids: ["a", "b"], skill_invoked: true, tool_use_counts: { Bash: 3, Skill: 1 } });
  });

  it("keeps an unmeasured cost or token count null instead of 0, and a measured 0 as 0", () => {
    expect(summarizeSessions([session(), session({ costUsd: null })]).cost_usd).toBeNull();
    expect(summarizeSessions([session({ usage: null })]).input_tokens).toBeNull();
    expect(summarizeSessions([session({ costUsd: 0 })]).cost_usd).toBe(0);
  });

  it("keeps tool tallies null when any session's stream was not measured, and counts gitnexus uses only when all were", () => {
    const unmeasured = summarizeSessions([session({ gitnexusToolUses: 2 }), session({ toolUseCounts: null, gitnexusToolUses: null })]);
    expect(unmeasured.tool_use_counts).toBeNull();
    expect(unmeasured.gitnexus_tool_uses).toBeNull();
    expect(summarizeSessions([]).tool_use_counts).toBeNull();
    expect(summarizeSessions([]).gitnexus_tool_uses).toBeNull();
    const measured = summarizeSessions([session({ toolUseCounts: {}, gitnexusToolUses: 0 }), session({ toolUseCounts: {}, gitnexusToolUses: 3 })]);
    expect(measured).toMatchObject({ tool_use_counts: {}, gitnexus_tool_uses: 3 });
  });

  it("takes the first error kind and detail; skill_invoked is false if any is false, else null if any is null", () => {
    const sums = summarizeSessions([session({ ok: false, errorKind: "skill-not-invoked", errorDetail: "x", skillInvoked: false }), session({ ok: false, errorKind: "session-error", skillInvoked: null })]);
    expect(sums).toMatchObject({ ok: false, error_kind: "skill-not-invoked", error_detail: "x", skill_invoked: false });
    expect(summarizeSessions([session(), session({ skillInvoked: null })]).skill_invoked).toBeNull();
    expect(summarizeSessions([]).skill_invoked).toBeNull();
    expect(summarizeSessions([]).ok).toBe(false);
  });
});
