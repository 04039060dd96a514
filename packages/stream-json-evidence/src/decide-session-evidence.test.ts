import { describe, expect, it } from "vitest";
import { assistant, encode, init, jsonl, result, toolResult, toolUse, user } from "../test/support/events.js";
import { classifyOutcome, type SessionOutcome } from "./classify-outcome.js";
import { decideSessionEvidence } from "./decide-session-evidence.js";
import { parseEvidenceBytes, refuseMissingCapture } from "./parse-evidence-stream.js";
import { proveSkillUse, type SkillProof } from "./prove-skill-use.js";
import type { JsonObject, ProcessOutcome } from "./schema.js";

function session(events: JsonObject[], process: ProcessOutcome = { exitCode: 0, state: "exited" }, maxBytes?: number): { outcome: SessionOutcome; proof: SkillProof | null } {
  const parsed = parseEvidenceBytes(encode(jsonl(events)), maxBytes === undefined ? {} : { maxBytes });
  return { outcome: classifyOutcome(parsed, process), proof: parsed.ok ? proveSkillUse(parsed.value, "review") : null };
}

function parseOk(events: JsonObject[]) {
  const parsed = parseEvidenceBytes(encode(jsonl(events)));
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

const invoked = [init(["review"]), assistant([toolUse("t1", "Skill", { skill: "review" })]), user([toolResult("t1")])];

describe("decideSessionEvidence", () => {
  it("keeps a proven, persisted, ok session ok", () => {
    expect(decideSessionEvidence({ ...session([...invoked, result()]), transcriptPersisted: true })).toEqual({
      ok: true,
      errorKind: null,
      skillInvoked: true,
      transcriptMissing: false,
      diagnostics: [],
      ownOutputBound: null,
    });
  });

  it("fails an ok session without the skill as skill-not-invoked", () => {
    const decided = decideSessionEvidence({ ...session([init(), result()]), transcriptPersisted: true });
    expect(decided).toMatchObject({ ok: false, errorKind: "skill-not-invoked", skillInvoked: false, diagnostics: [] });
  });

  it("keeps the session error primary and only notes the missing skill on a failed session", () => {
    const decided = decideSessionEvidence({ ...session([init(), result({ is_error: true })], { exitCode: 1, state: "exited" }), transcriptPersisted: true });
    expect(decided).toMatchObject({ ok: false, errorKind: "session-error", skillInvoked: false, diagnostics: ["skill review was not invoked"] });
  });

  it("turns unverifiable skill evidence on an ok session into evidence-unverified with the transcript missing", () => {
    const decided = decideSessionEvidence({ ...session([init(), assistant([toolUse("t1", "Skill", { skill: "review" })]), result()]), transcriptPersisted: true });
    expect(decided).toMatchObject({ ok: false, errorKind: "evidence-unverified", skillInvoked: null, transcriptMissing: true });
    expect(decided.diagnostics[0]).toMatch(/^EVIDENCE_SKILL_RESULT_MISSING: .*\(line 2\)$/);
  });

  it("treats an overflowing capture of a clean exit as unverifiable evidence, not a session error", () => {
    const decided = decideSessionEvidence({ ...session([...invoked, result()], { exitCode: 0, state: "exited" }, 64), transcriptPersisted: false });
    expect(decided).toMatchObject({ ok: false, errorKind: "evidence-unverified", skillInvoked: null, transcriptMissing: true });
    expect(decided.diagnostics[0]).toMatch(/^EVIDENCE_OVERSIZE/);
    expect(decided.ownOutputBound).toBe("capture-size");
  });

  it("treats a tool input nested past the parser's depth on a clean exit as the session's own unverifiable evidence", () => {
    let deep: unknown = "bottom";
    for (let level = 0; level < 300; level += 1) deep = { a: deep };
    const decided = decideSessionEvidence({ ...session([...invoked, assistant([toolUse("t2", "Bash", { command: "true", payload: deep as JsonObject })]), result()]), transcriptPersisted: true });
    expect(decided).toMatchObject({ ok: false, errorKind: "evidence-unverified", skillInvoked: null, transcriptMissing: true, ownOutputBound: "nesting-depth" });
    expect(decided.diagnostics[0]).toMatch(/^EVIDENCE_NESTING_TOO_DEEP: /u);
  });

  it("keeps an over-deep stream of a CLI that failed a session error, with no own-output bound", () => {
    let deep: unknown = "bottom";
    for (let level = 0; level < 300; level += 1) deep = { a: deep };
    const decided = decideSessionEvidence({ ...session([...invoked, assistant([toolUse("t2", "Bash", { payload: deep as JsonObject })]), result()], { exitCode: 1, state: "exited" }), transcriptPersisted: true });
    expect(decided).toMatchObject({ ok: false, errorKind: "session-error", ownOutputBound: null });
  });

  it("treats a missing capture of a clean exit as unverifiable evidence", () => {
    const outcome = classifyOutcome(refuseMissingCapture("stdout pipe was never opened"), { exitCode: 0, state: "exited" });
    const decided = decideSessionEvidence({ outcome, proof: null, transcriptPersisted: false });
    expect(decided).toMatchObject({ ok: false, errorKind: "evidence-unverified", skillInvoked: null, transcriptMissing: true });
    expect(decided.diagnostics[0]).toMatch(/^EVIDENCE_CAPTURE_MISSING: no stdout capture/);
    // The harness's capture, not the session's output, went missing: nothing the session did.
    expect(decided.ownOutputBound).toBeNull();
  });

  it("keeps a persistence failure on a failed session as a diagnostic under the primary session-error", () => {
    const decided = decideSessionEvidence({
      ...session([...invoked, result()], { exitCode: null, state: "timeout" }),
      transcriptPersisted: false,
      extraDiagnostics: ["transcript persistence failed: EVIDENCE_ARTIFACT_EXISTS"],
    });
    expect(decided).toMatchObject({ ok: false, errorKind: "session-error", skillInvoked: true, transcriptMissing: true, diagnostics: ["transcript persistence failed: EVIDENCE_ARTIFACT_EXISTS"] });
  });

  it("makes an ok session whose transcript was not persisted evidence-unverified, even without a caller diagnostic", () => {
    const decided = decideSessionEvidence({ ...session([...invoked, result()]), transcriptPersisted: false });
    expect(decided).toMatchObject({ ok: false, errorKind: "evidence-unverified", skillInvoked: true, transcriptMissing: true });
    expect(decided.diagnostics).toEqual(["transcript was not persisted"]);
  });

  it("never lets a refused stream carry a skill claim, whatever the proof says", () => {
    const parsed = parseEvidenceBytes(encode(jsonl([...invoked, result(), result()])));
    const outcome = classifyOutcome(parsed, { exitCode: 0, state: "exited" });
    const forged = proveSkillUse(parseOk([...invoked, result()]), "review");
    expect(forged.skillInvoked).toBe(true);
    expect(decideSessionEvidence({ outcome, proof: forged, transcriptPersisted: true })).toMatchObject({ ok: false, errorKind: "session-error", skillInvoked: null });
  });

  it("leaves skillInvoked null for arms without an expected skill", () => {
    const { outcome } = session([init(), result()]);
    expect(decideSessionEvidence({ outcome, proof: null, transcriptPersisted: true })).toMatchObject({ ok: true, skillInvoked: null });
  });
});
