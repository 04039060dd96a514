import { describe, expect, it } from "vitest";
import { judgeCell, judgeCleanupFailure, type CellFacts, type CellVerdict, type MeasuredFacts, type SessionFacts } from "./judge-cell.js";

const OK_SESSIONS: SessionFacts = { ok: true, errorKind: null, errorDetail: null, cancelled: false };
const CLEAN: MeasuredFacts = { review: false, planFailure: null, reviewFailure: null, skillsChanged: false, verifyPassed: true, oraclePassed: true, reviewInvalid: null, diffUnchanged: false, aborted: false };
const SESSION_ERROR_DETAIL = { subtype: "error_during_execution", returncode: 1, process_state: "exited", stderr_tail: null, stdout_tail: null, process_detail: null, event_stream_error: null };

function measured(sessions: Partial<SessionFacts>, facts: Partial<MeasuredFacts>): CellFacts {
  return { stage: "measured", sessions: { ...OK_SESSIONS, ...sessions }, ...CLEAN, ...facts };
}

type Expected = Pick<CellVerdict, "ok" | "error_kind" | "resolved"> & { error_detail?: CellVerdict["error_detail"]; diagnostics?: readonly string[] };

describe("judgeCell: the error-kind precedence of reference §4.2/§4.3", () => {
  it.each<[string, CellFacts, Expected]>([
    ["a clean implementation cell resolves", measured({}, {}), { ok: true, error_kind: null, resolved: true, error_detail: null, diagnostics: [] }],
    ["a clean review cell resolves without a diff", measured({}, { review: true, diffUnchanged: true }), { ok: true, error_kind: null, resolved: true }],
    ["verify failing is verify-failed", measured({}, { verifyPassed: false }), { ok: true, error_kind: "verify-failed", resolved: false }],
    ["verify and oracle failing is verify-failed, not oracle-failed", measured({}, { verifyPassed: false, oraclePassed: false }), { ok: true, error_kind: "verify-failed", resolved: false }],
    ["the oracle failing is oracle-failed", measured({}, { oraclePassed: false }), { ok: true, error_kind: "oracle-failed", resolved: false }],
    ["a resolved implementation cell without a diff is no-work-produced", measured({}, { diffUnchanged: true }), { ok: true, error_kind: "no-work-produced", resolved: false }],
    ["an unresolved cell without a diff keeps its failure", measured({}, { diffUnchanged: true, verifyPassed: false }), { ok: true, error_kind: "verify-failed", resolved: false }],
    [
      "a session error wins over verify and the oracle, keeping its detail",
      measured({ ok: false, errorKind: "session-error", errorDetail: SESSION_ERROR_DETAIL }, { verifyPassed: false, oraclePassed: false }),
      { ok: false, error_kind: "session-error", resolved: false, error_detail: SESSION_ERROR_DETAIL },
    ],
    ["skill-not-invoked is kept and never resolves", measured({ ok: false, errorKind: "skill-not-invoked", errorDetail: "no Skill call" }, {}), { ok: false, error_kind: "skill-not-invoked", resolved: false, error_detail: "no Skill call" }],
    ["a plan failure of an ok session is plan-evidence-invalid", measured({}, { planFailure: "expected exactly one plan document under docs/plans, found 0" }), { ok: false, error_kind: "plan-evidence-invalid", resolved: false, error_detail: "expected exactly one plan document under docs/plans, found 0" }],
    ["a plan failure does not mask a session error", measured({ ok: false, errorKind: "session-error", errorDetail: "boom" }, { planFailure: "found 0" }), { ok: false, error_kind: "session-error", resolved: false, error_detail: "boom" }],
    ["a changed review workspace is review-evidence-invalid", measured({}, { review: true, reviewFailure: "the review session changed the workspace: x" }), { ok: false, error_kind: "review-evidence-invalid", resolved: false }],
    ["changed skill files on an implementation arm", measured({}, { skillsChanged: true }), { ok: true, error_kind: "implementation-evidence-invalid", resolved: false, error_detail: "the evaluated skill files changed during the session" }],
    ["changed skill files on a review arm", measured({}, { review: true, skillsChanged: true }), { ok: true, error_kind: "review-evidence-invalid", resolved: false }],
    ["changed skill files do not replace a plan failure", measured({}, { planFailure: "found 2", skillsChanged: true }), { ok: false, error_kind: "plan-evidence-invalid", resolved: false, error_detail: "found 2" }],
    [
      "an invalid review artifact sets the kind when nothing failed before",
      measured({}, { review: true, reviewInvalid: "REVIEW_JSON_INVALID: bad", oraclePassed: false }),
      { ok: true, error_kind: "review-evidence-invalid", resolved: false, error_detail: "review output invalid: REVIEW_JSON_INVALID: bad", diagnostics: [] },
    ],
    [
      "an invalid review artifact after another failure is only a diagnostic",
      measured({ ok: false, errorKind: "skill-not-invoked", errorDetail: "no Skill call" }, { review: true, reviewInvalid: "REVIEW_MISSING: none", oraclePassed: false }),
      { ok: false, error_kind: "skill-not-invoked", resolved: false, error_detail: "no Skill call", diagnostics: ["review output invalid: REVIEW_MISSING: none"] },
    ],
    [
      "a cancel during verify or the oracle makes the cell cancelled",
      measured({}, { aborted: true, verifyPassed: false }),
      { ok: false, error_kind: "cancelled", resolved: false, error_detail: "the sweep was cancelled before the cell finished" },
    ],
    ["a cancel overrides a resolved cell", measured({}, { aborted: true }), { ok: false, error_kind: "cancelled", resolved: false }],
    [
      "spend outside the CLI makes a resolved cell evidence-unverified",
      measured({}, { unaccountedSpend: "unaccounted spend: 1 gateway request(s)" }),
      { ok: false, error_kind: "evidence-unverified", resolved: false, error_detail: "unaccounted spend: 1 gateway request(s)", diagnostics: [] },
    ],
    [
      "spend outside the CLI on a failing cell keeps its failure (no laundering into an excluded row) and notes it",
      measured({}, { oraclePassed: false, unaccountedSpend: "unaccounted spend: 2 gateway request(s)" }),
      { ok: true, error_kind: "oracle-failed", resolved: false, diagnostics: ["unaccounted spend: 2 gateway request(s)"] },
    ],
    ["no unaccounted spend changes nothing", measured({}, { unaccountedSpend: null }), { ok: true, error_kind: null, resolved: true, diagnostics: [] }],
    ["a cancelled session wins, keeping the sessions' detail", { stage: "sessions-cancelled", sessions: { ok: false, errorKind: "session-error", errorDetail: "killed", cancelled: true } }, { ok: false, error_kind: "cancelled", resolved: false, error_detail: "killed" }],
    ["a failed setup is infra-error", { stage: "setup-failed", detail: "setup exited (exit 1): no such file" }, { ok: false, error_kind: "infra-error", resolved: false, error_detail: "setup exited (exit 1): no such file" }],
    ["a harness failure is infra-error", { stage: "interrupted", aborted: false, detail: "SandboxPolicyError(SANDBOX_X): gone" }, { ok: false, error_kind: "infra-error", resolved: false, error_detail: "SandboxPolicyError(SANDBOX_X): gone" }],
    ["a harness failure after a cancel is cancelled", { stage: "interrupted", aborted: true, detail: "aborted" }, { ok: false, error_kind: "cancelled", resolved: false }],
  ])("%s", (_name, facts, expected) => {
    expect(judgeCell(facts)).toMatchObject(expected);
  });

  it("never resolves a cell that carries an error kind", () => {
    const flags = [true, false];
    for (const ok of flags)
      for (const verifyPassed of flags)
        for (const oraclePassed of flags)
          for (const skillsChanged of flags)
            for (const diffUnchanged of flags)
              for (const review of flags)
                for (const aborted of flags) {
                  const verdict = judgeCell(measured({ ok, errorKind: ok ? null : "session-error" }, { verifyPassed, oraclePassed, skillsChanged, diffUnchanged, review, aborted }));
                  expect(verdict.resolved).toBe(verdict.ok && verdict.error_kind === null);
                  expect(verdict.resolved).toBe(ok && verifyPassed && oraclePassed && !skillsChanged && (review || !diffUnchanged) && !aborted);
                }
  });
});

describe("judgeCleanupFailure", () => {
  it("overrides the row with cleanup-failure and keeps the primary kind and detail", () => {
    expect(judgeCleanupFailure({ error_kind: "verify-failed", error_detail: null }, "Error(EBUSY): busy")).toEqual({
      ok: false,
      error_kind: "cleanup-failure",
      error_detail: "primary=verify-failed: null; cleanup: Error(EBUSY): busy",
      resolved: false,
      diagnostics: [],
    });
    expect(judgeCleanupFailure({ error_kind: null, error_detail: "x" }, "e").error_detail).toBe("primary=none: x; cleanup: e");
  });

  it("serialises a dict detail and bounds the message to 2000 characters", () => {
    expect(judgeCleanupFailure({ error_kind: "session-error", error_detail: SESSION_ERROR_DETAIL }, "e").error_detail).toContain(`primary=session-error: ${JSON.stringify(SESSION_ERROR_DETAIL)}`);
    expect(judgeCleanupFailure({ error_kind: "infra-error", error_detail: "x".repeat(5000) }, "e").error_detail).toHaveLength(2000);
  });
});
