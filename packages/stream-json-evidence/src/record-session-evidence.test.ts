import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recordSessionEvidence, type CapturedSession, type SessionToRecord } from "./record-session-evidence.js";

const TOKEN = "wfb-cell-token-7d1e0c9a";
const work: SessionToRecord = { phase: "work", expectedSkill: "demo-work" };
const baseline: SessionToRecord = { phase: "work", expectedSkill: null };

const init = { type: "system", subtype: "init", session_id: "sess-1", skills: ["demo-work"] };
const skillCall = { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Skill", input: { skill: "demo-work" } }] }, parent_tool_use_id: null, session_id: "sess-1" };
const skillResult = { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] }, parent_tool_use_id: null, session_id: "sess-1" };
const bash = { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "Bash", input: { command: `echo ${TOKEN}` } }, { type: "tool_use", id: "t3", name: "mcp__gitnexus__query", input: {} }] }, parent_tool_use_id: null, session_id: "sess-1" };
const bashResult = { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "done" }, { type: "tool_result", tool_use_id: "t3", content: "{}" }] }, parent_tool_use_id: null, session_id: "sess-1" };
const result = {
  type: "result",
  subtype: "success",
  is_error: false,
  session_id: "sess-1",
  num_turns: 3,
  duration_ms: 1200,
  total_cost_usd: 0.01,
  usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
  modelUsage: { "claude-sonnet-4-5": { costBasis: "list", costUSD: 0.01, inputTokens: 10, outputTokens: 5 } },
};
const jsonl = (events: readonly object[]): string => events.map((event) => `${JSON.stringify(event)}\n`).join("");

function captured(stdout: string, overrides: Partial<CapturedSession> = {}): CapturedSession {
  return { stdout: Buffer.from(stdout, "utf8"), stdoutOverflow: false, state: "exited", exitCode: 0, stderrTail: "", setupError: null, durationMs: 1500, ...overrides };
}

const dirs: string[] = [];
function outDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "record-evidence-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function context(out: string, contaminationSkill: string | null = "demo-work") {
  return { outDir: out, transcriptPrefix: "demo-clamp-workflow_direct-run0", contaminationSkill, secrets: [TOKEN] };
}

function readArtifact(out: string, path: string): string {
  const bytes = readFileSync(join(out, path));
  return bytes.toString("utf8");
}

describe("recordSessionEvidence", () => {
  it("measures tool counts from a stream that parsed, on skill and baseline sessions alike", async () => {
    const out = outDir();
    const ok = await recordSessionEvidence(work, captured(jsonl([init, skillCall, skillResult, bash, bashResult, result])), context(out));
    expect(ok).toMatchObject({ ok: true, errorKind: null, skillInvoked: true, toolUseCounts: { Skill: 1, Bash: 1, mcp__gitnexus__query: 1 }, gitnexusToolUses: 1, streamEnd: "result" });
    const base = await recordSessionEvidence(baseline, captured(jsonl([init, bash, bashResult, result])), { ...context(out), transcriptPrefix: "baseline-run0" });
    expect(base).toMatchObject({ ok: true, skillInvoked: false, toolUseCounts: { Bash: 1, mcp__gitnexus__query: 1 }, gitnexusToolUses: 1 });
    const unchecked = await recordSessionEvidence(baseline, captured(jsonl([init, bash, bashResult, result])), { ...context(out, null), transcriptPrefix: "unchecked-run0" });
    expect(unchecked.toolUseCounts).toEqual({ Bash: 1, mcp__gitnexus__query: 1 });
  });

  it("hands the cell the stream's assistant message ids and modelUsage tokens to match its wire rows against", async () => {
    const out = outDir();
    const withIds = [init, { ...skillCall, message: { ...skillCall.message, id: "msg_a" } }, skillResult, { ...bash, message: { ...bash.message, id: "msg_b" } }, bashResult];
    const full = { ...result, modelUsage: { "claude-sonnet-4-5": { costBasis: "list", costUSD: 0.01, inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 3, cacheCreationInputTokens: 2 }, "claude-haiku-4-5": { costBasis: "list", costUSD: 0, inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 } } };
    const ok = await recordSessionEvidence(work, captured(jsonl([...withIds, full])), context(out));
    expect(ok).toMatchObject({ assistantMessageIds: ["msg_a", "msg_b"], modelUsageTokens: 22 });
    // A model entry without its cache counts is not a known total; a killed session keeps the ids it printed.
    const partial = await recordSessionEvidence(work, captured(jsonl([...withIds, result])), { ...context(out), transcriptPrefix: "partial-run0" });
    expect(partial.modelUsageTokens).toBeNull();
    const killed = await recordSessionEvidence(work, captured(jsonl(withIds), { state: "timeout", exitCode: null }), { ...context(out), transcriptPrefix: "killed-run0" });
    expect(killed).toMatchObject({ ok: false, assistantMessageIds: ["msg_a", "msg_b"], modelUsageTokens: null });
  });

  it.each([
    ["an event after the result", jsonl([init, skillCall, skillResult, bash, result, { type: "assistant", message: { content: [{ type: "text", text: TOKEN }] } }]), "EVIDENCE_EVENT_AFTER_RESULT"],
    ["a malformed line", `${jsonl([init, skillCall])}{"type":"assistant","message":{"content":"${TOKEN}"\n${jsonl([skillResult, result])}`, "EVIDENCE_MALFORMED_LINE"],
    ["a second result", jsonl([init, skillCall, skillResult, result, result]), "EVIDENCE_RESULT_DUPLICATE"],
  ])("keeps a redacted, hashed transcript of a stream refused for %s, with the error kind untouched", async (_name, stdout, code) => {
    const out = outDir();
    const record = await recordSessionEvidence(work, captured(stdout), context(out));
    expect(record.ok).toBe(false);
    expect(record.errorKind).toBe("session-error");
    expect(JSON.stringify(record.errorDetail)).toContain(code);
    expect(record.artifact).not.toBeNull();
    const artifact = record.artifact;
    if (artifact === null) return;
    expect(artifact.path).toBe("transcripts/demo-clamp-workflow_direct-run0-sess-1.jsonl");
    const bytes = readFileSync(join(out, artifact.path));
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(artifact.sha256);
    expect(artifact.bytes).toBe(bytes.length);
    expect(statSync(join(out, artifact.path)).mode & 0o777).toBe(0o600);
    const text = readArtifact(out, artifact.path);
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('"subtype":"init"');
    expect(record.diagnostics.join("\n")).toMatch(/transcript salvaged from a stream that did not parse/u);
    expect(record.transcriptMissing).toBe(false);
    // Not measured: the stream did not parse.
    expect(record.toolUseCounts).toBeNull();
    expect(record.gitnexusToolUses).toBeNull();
    expect(record.skillInvoked).toBeNull();
    expect(record.numTurns).toBeNull();
    expect(record.usage).toBeNull();
    expect(record.costUsd).toBeNull();
  });

  it("turns a deeply nested tool input into the session's own unverifiable evidence, not a thrown RangeError", async () => {
    const out = outDir();
    const deepCall = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t9","name":"Bash","input":{"x":${"[".repeat(20_000)}${"]".repeat(20_000)}}}]},"parent_tool_use_id":null,"session_id":"sess-1"}\n`;
    const record = await recordSessionEvidence(work, captured(`${jsonl([init, skillCall, skillResult])}${deepCall}${jsonl([result])}`), context(out));
    expect(record).toMatchObject({ ok: false, errorKind: "evidence-unverified", skillInvoked: null, toolUseCounts: null, ownOutputBound: "nesting-depth" });
    expect(JSON.stringify(record.errorDetail)).toContain("EVIDENCE_NESTING_TOO_DEEP");
    expect(record.artifact).not.toBeNull();
  });

  it("names a salvaged transcript after the phase when no event carries a valid session id", async () => {
    const out = outDir();
    const record = await recordSessionEvidence(work, captured("Traceback: boom\n", { exitCode: 1 }), context(out));
    expect(record.errorKind).toBe("session-error");
    expect(record.sessionId).toBeNull();
    expect(record.artifact?.path).toBe("transcripts/demo-clamp-workflow_direct-run0-nosession-work.jsonl");
    expect(readArtifact(out, record.artifact?.path ?? "")).toContain('"reason":"malformed-json"');
  });

  it("keeps the partial events of a timed-out session, with counts left unmeasured", async () => {
    const out = outDir();
    const record = await recordSessionEvidence(work, captured(jsonl([init, skillCall, skillResult, bash]), { state: "timeout", exitCode: null }), context(out));
    expect(record).toMatchObject({ ok: false, errorKind: "session-error", sessionId: "sess-1", toolUseCounts: null, gitnexusToolUses: null, durationS: 1.5, streamEnd: "tool-running" });
    expect(record.artifact?.path).toBe("transcripts/demo-clamp-workflow_direct-run0-sess-1.jsonl");
    expect(readArtifact(out, record.artifact?.path ?? "")).not.toContain(TOKEN);
  });

  it("keeps a bounded salvage of an overflowing capture and leaves it evidence-unverified", async () => {
    const out = outDir();
    const record = await recordSessionEvidence(work, captured(jsonl([init, skillCall, skillResult, result]), { stdoutOverflow: true }), context(out));
    expect(record).toMatchObject({ ok: false, errorKind: "evidence-unverified", toolUseCounts: null, gitnexusToolUses: null, transcriptMissing: true });
    expect(record.artifact).not.toBeNull();
  });

  it("records no transcript for an empty capture, and says so", async () => {
    const out = outDir();
    const record = await recordSessionEvidence(work, captured("", { exitCode: 1 }), context(out));
    expect(record).toMatchObject({ ok: false, errorKind: "session-error", artifact: null, transcriptMissing: true, toolUseCounts: null, streamEnd: "unparsed" });
    expect(record.diagnostics.join("\n")).toContain("transcript not persisted: the capture holds no event");
  });
});
