import { describe, expect, it } from "vitest";
import { isAbortedByAgent, judgeCell, judgeCleanupFailure, type CellFacts, type CellVerdict, type MeasuredFacts, type SessionEnding, type SessionFacts, type WireFacts } from "./judge-cell.js";

const OK_SESSIONS: SessionFacts = { ok: true, errorKind: null, errorDetail: null, cancelled: false, failedEnding: null };
const ANSWERED: WireFacts = { requests: 2, upstreamFailedRequests: 0, abortedRequests: 0 };
const OUTAGE: WireFacts = { requests: 4, upstreamFailedRequests: 3, abortedRequests: 0 };
/** The CLI went away mid-request: a hung or slow model when the harness's clock ran out. */
const IN_FLIGHT: WireFacts = { requests: 2, upstreamFailedRequests: 0, abortedRequests: 1 };
const CLEAN: MeasuredFacts = { review: false, planFailure: null, reviewFailure: null, skillsChanged: false, verifyPassed: true, oraclePassed: true, reviewInvalid: null, diffUnchanged: false, aborted: false, workspaceInvalid: null, wire: ANSWERED };
/** How the kill-cli trajectory of apps/runner/test/failure-attribution.int.test.ts ends: SIGTERM from its own Bash call. */
const KILLED_IN_TOOL: SessionEnding = { processState: "exited", exitCode: 143, streamEnd: "tool-result" };
/** A Bash call that outlives the harness's session timeout (`sleep` past --timeout). */
const TIMED_OUT_IN_TOOL: SessionEnding = { processState: "timeout", exitCode: 143, streamEnd: "tool-result" };
const SESSION_ERROR_DETAIL = { subtype: "error_during_execution", returncode: 1, process_state: "exited", stderr_tail: null, stdout_tail: null, process_detail: null, event_stream_error: null };

const OVERSIZE = "EVIDENCE_OVERSIZE: the capture overflowed its bound and was truncated";
const OVERFLOW_NOTE = (what: string, cause = "its own output overflowed the capture"): string => `the session's evidence is unverifiable (${cause}), but ${what} failed on the workspace it left: counted as that failure, not excluded`;
const DEEP = "EVIDENCE_NESTING_TOO_DEEP: malformed event at line 3: nested deeper than 256 levels";

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
    [
      "an oracle the host could not run is oracle-unavailable: a valid negative with its reason",
      measured({}, { oraclePassed: false, oracleUnavailable: "ORACLE_READ_FAILED: EIO" }),
      { ok: true, error_kind: "oracle-unavailable", resolved: false, error_detail: "hidden oracle unavailable: ORACLE_READ_FAILED: EIO" },
    ],
    ["verify failing wins over an unavailable oracle", measured({}, { verifyPassed: false, oraclePassed: false, oracleUnavailable: "ORACLE_READ_FAILED: EIO" }), { ok: true, error_kind: "verify-failed", resolved: false }],
    ["a session error wins over an unavailable oracle", measured({ ok: false, errorKind: "session-error", errorDetail: "boom" }, { oraclePassed: false, oracleUnavailable: "x" }), { ok: false, error_kind: "session-error", resolved: false, error_detail: "boom" }],
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
    [
      "a session whose own output overflowed the capture keeps a failed oracle counted (no laundering into an excluded row)",
      measured({ ok: false, errorKind: "evidence-unverified", errorDetail: OVERSIZE, ownOutputBound: "capture-size" }, { oraclePassed: false }),
      { ok: false, error_kind: "oracle-failed", resolved: false, error_detail: OVERSIZE, diagnostics: [OVERFLOW_NOTE("the hidden oracle")] },
    ],
    [
      "an overflowed session keeps a failed verify counted",
      measured({ ok: false, errorKind: "evidence-unverified", errorDetail: OVERSIZE, ownOutputBound: "capture-size" }, { verifyPassed: false, oraclePassed: false }),
      { ok: false, error_kind: "verify-failed", resolved: false, error_detail: OVERSIZE, diagnostics: [OVERFLOW_NOTE("verify")] },
    ],
    [
      "an overflowed session whose verify and oracle passed stays evidence-unverified: a pass is never credited without evidence",
      measured({ ok: false, errorKind: "evidence-unverified", errorDetail: OVERSIZE, ownOutputBound: "capture-size" }, {}),
      { ok: false, error_kind: "evidence-unverified", resolved: false, error_detail: OVERSIZE, diagnostics: [] },
    ],
    [
      "a session whose own tool input nested past the parser's depth keeps a failed verify counted (no laundering into an excluded row)",
      measured({ ok: false, errorKind: "evidence-unverified", errorDetail: DEEP, ownOutputBound: "nesting-depth" }, { verifyPassed: false, oraclePassed: false }),
      { ok: false, error_kind: "verify-failed", resolved: false, error_detail: DEEP, diagnostics: [OVERFLOW_NOTE("verify", "its own output nested past the evidence parser's depth")] },
    ],
    [
      "an over-deep session whose verify and oracle passed stays evidence-unverified",
      measured({ ok: false, errorKind: "evidence-unverified", errorDetail: DEEP, ownOutputBound: "nesting-depth" }, {}),
      { ok: false, error_kind: "evidence-unverified", resolved: false, error_detail: DEEP, diagnostics: [] },
    ],
    [
      "evidence unverifiable for another reason (nothing the session's size shows) stays excluded even when the oracle failed",
      measured({ ok: false, errorKind: "evidence-unverified", errorDetail: "transcript not persisted: EVIDENCE_ARTIFACT_WRITE_FAILED" }, { oraclePassed: false }),
      { ok: false, error_kind: "evidence-unverified", resolved: false, diagnostics: [] },
    ],
    ["a cancelled session wins, keeping the sessions' detail", { stage: "sessions-cancelled", sessions: { ok: false, errorKind: "session-error", errorDetail: "killed", cancelled: true, failedEnding: null } }, { ok: false, error_kind: "cancelled", resolved: false, error_detail: "killed" }],
    ["a failed setup is infra-error", { stage: "setup-failed", detail: "setup exited (exit 1): no such file" }, { ok: false, error_kind: "infra-error", resolved: false, error_detail: "setup exited (exit 1): no such file" }],
    ["a harness failure is infra-error", { stage: "interrupted", aborted: false, detail: "SandboxPolicyError(SANDBOX_X): gone", origin: "harness" }, { ok: false, error_kind: "infra-error", resolved: false, error_detail: "SandboxPolicyError(SANDBOX_X): gone" }],
    ["a harness failure after a cancel is cancelled", { stage: "interrupted", aborted: true, detail: "aborted", origin: "harness" }, { ok: false, error_kind: "cancelled", resolved: false }],
    [
      "a failure the candidate's workspace caused is workspace-invalid, not infra-error",
      { stage: "interrupted", aborted: false, detail: "Error(ENAMETOOLONG): name too long, scandir '/w/d/d/d'", origin: "workspace" },
      { ok: false, error_kind: "workspace-invalid", resolved: false, error_detail: "Error(ENAMETOOLONG): name too long, scandir '/w/d/d/d'" },
    ],
    ["a cancel still wins over a workspace failure", { stage: "interrupted", aborted: true, detail: "x", origin: "workspace" }, { ok: false, error_kind: "cancelled", resolved: false }],
    [
      "git refusing the workspace after the session (.git removed) is workspace-invalid even when the oracle failed",
      measured({}, { oraclePassed: false, workspaceInvalid: "git diff refused the workspace after the session: fatal: not a git repository" }),
      { ok: true, error_kind: "workspace-invalid", resolved: false, error_detail: "git diff refused the workspace after the session: fatal: not a git repository" },
    ],
    ["an unmeasurable workspace never resolves, even when verify and the oracle passed", measured({}, { workspaceInvalid: "git diff: Out of memory" }), { ok: true, error_kind: "workspace-invalid", resolved: false }],
    [
      "an unmeasurable workspace after a session error is a diagnostic only",
      measured({ ok: false, errorKind: "skill-not-invoked", errorDetail: "no Skill call" }, { workspaceInvalid: "gone" }),
      { ok: false, error_kind: "skill-not-invoked", resolved: false, diagnostics: ["workspace invalid: gone"] },
    ],
    [
      "the agent SIGTERMing its own CLI from a Bash call is session-aborted-by-agent, keeping the session detail",
      measured({ ok: false, errorKind: "session-error", errorDetail: SESSION_ERROR_DETAIL, failedEnding: KILLED_IN_TOOL }, { oraclePassed: false }),
      { ok: false, error_kind: "session-aborted-by-agent", resolved: false, error_detail: SESSION_ERROR_DETAIL },
    ],
    [
      "a signal death inside the tool call counts as the agent's even when the gateway saw an outage",
      measured({ ok: false, errorKind: "session-error", errorDetail: "x", failedEnding: KILLED_IN_TOOL }, { wire: OUTAGE }),
      { ok: false, error_kind: "session-aborted-by-agent", resolved: false },
    ],
    [
      "a plain exit inside the tool call is the agent's only when the gateway answered every request",
      measured({ ok: false, errorKind: "session-error", errorDetail: "x", failedEnding: { ...KILLED_IN_TOOL, exitCode: 1 } }, { wire: OUTAGE }),
      { ok: false, error_kind: "session-error", resolved: false },
    ],
    [
      "a CLI ending after failed model requests (an outage) stays session-error, excluded",
      measured({ ok: false, errorKind: "session-error", errorDetail: "x", failedEnding: { processState: "exited", exitCode: 1, streamEnd: "result" } }, { wire: OUTAGE }),
      { ok: false, error_kind: "session-error", resolved: false },
    ],
    [
      "a session the harness timed out while waiting on the model stays session-error",
      measured({ ok: false, errorKind: "session-error", errorDetail: "x", failedEnding: TIMED_OUT_IN_TOOL }, { wire: IN_FLIGHT }),
      { ok: false, error_kind: "session-error", resolved: false },
    ],
    [
      "a session the harness timed out while the agent's own tool ran is the agent's",
      measured({ ok: false, errorKind: "session-error", errorDetail: "x", failedEnding: TIMED_OUT_IN_TOOL }, {}),
      { ok: false, error_kind: "session-aborted-by-agent", resolved: false },
    ],
    [
      "a SIGINT interrupt the CLI recorded is the agent's (the harness never sends one)",
      measured({ ok: false, errorKind: "session-error", errorDetail: "x", failedEnding: { processState: "exited", exitCode: 0, streamEnd: "interrupted" } }, { wire: OUTAGE }),
      { ok: false, error_kind: "session-aborted-by-agent", resolved: false },
    ],
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
                for (const aborted of flags)
                  for (const broken of flags) {
                    const workspaceInvalid = broken ? "git refused the workspace" : null;
                    const verdict = judgeCell(measured({ ok, errorKind: ok ? null : "session-error" }, { verifyPassed, oraclePassed, skillsChanged, diffUnchanged, review, aborted, workspaceInvalid }));
                    expect(verdict.resolved).toBe(verdict.ok && verdict.error_kind === null);
                    expect(verdict.resolved).toBe(ok && verifyPassed && oraclePassed && !skillsChanged && (review || !diffUnchanged) && !aborted && !broken);
                  }
  });
});

describe("isAbortedByAgent: the CLI ended by its own tools, told apart from an outage by host evidence", () => {
  it.each<[string, SessionEnding, WireFacts, boolean]>([
    ["SIGTERM from a Bash call, gateway answered", KILLED_IN_TOOL, ANSWERED, true],
    ["SIGHUP from a Bash call", { ...KILLED_IN_TOOL, exitCode: 129 }, ANSWERED, true],
    ["a background SIGTERM that landed while a request was in flight (aborted by the client, not upstream)", KILLED_IN_TOOL, IN_FLIGHT, true],
    ["exit 1 inside the tool call, gateway answered", { ...KILLED_IN_TOOL, exitCode: 1 }, ANSWERED, true],
    ["exit 1 inside the tool call, upstream failures", { ...KILLED_IN_TOOL, exitCode: 1 }, OUTAGE, false],
    ["a signal number past 64 is not a signal death", { ...KILLED_IN_TOOL, exitCode: 200 }, OUTAGE, false],
    ["the harness's timeout with a model request in flight (a hung model)", TIMED_OUT_IN_TOOL, IN_FLIGHT, false],
    ["the harness's timeout while the agent's tool ran (the CLI wrote the killed tool's result)", TIMED_OUT_IN_TOOL, ANSWERED, true],
    ["the harness's timeout while the tool ran, no result written", { ...TIMED_OUT_IN_TOOL, streamEnd: "tool-running" }, ANSWERED, true],
    ["the harness's forced kill while the agent's tool ran", { ...TIMED_OUT_IN_TOOL, processState: "forced-kill", exitCode: 137 }, ANSWERED, true],
    ["the harness's timeout while the agent's tool ran, during an outage", TIMED_OUT_IN_TOOL, OUTAGE, false],
    ["the harness's timeout in a model turn", { ...TIMED_OUT_IN_TOOL, streamEnd: "model-turn" }, ANSWERED, false],
    ["SIGTERM while the tool still ran (no tool_result written)", { ...KILLED_IN_TOOL, streamEnd: "tool-running" }, OUTAGE, true],
    ["a cancel", { ...KILLED_IN_TOOL, processState: "cancelled" }, ANSWERED, false],
    ["a sandbox that never started", { processState: "spawn-failure", exitCode: null, streamEnd: "unparsed" }, ANSWERED, false],
    ["waiting on the model", { ...KILLED_IN_TOOL, streamEnd: "model-turn" }, ANSWERED, false],
    ["a result event the CLI wrote itself (is_error)", { ...KILLED_IN_TOOL, exitCode: 1, streamEnd: "result" }, ANSWERED, false],
    ["an unparsed capture", { ...KILLED_IN_TOOL, streamEnd: "unparsed" }, ANSWERED, false],
    ["no conversation at all", { ...KILLED_IN_TOOL, streamEnd: "none" }, ANSWERED, false],
    ["a recorded interrupt, even with an outage", { processState: "exited", exitCode: 0, streamEnd: "interrupted" }, OUTAGE, true],
  ])("%s → %s", (_name, ending, wire, expected) => {
    expect(isAbortedByAgent(ending, wire)).toBe(expected);
  });
});

describe("judgeCleanupFailure", () => {
  it("counts a candidate-written tree that would not go against the candidate, not as an exclusion", () => {
    expect(judgeCleanupFailure({ error_kind: "oracle-failed", error_detail: null }, "DurableFsError: rm failed", "workspace")).toEqual({
      ok: false,
      error_kind: "workspace-invalid",
      error_detail: "primary=oracle-failed: null; cleanup of the candidate's files: DurableFsError: rm failed",
      resolved: false,
      diagnostics: [],
    });
    expect(judgeCleanupFailure({ error_kind: null, error_detail: null }, "e", "workspace")).toMatchObject({ error_kind: "workspace-invalid", resolved: false });
    expect(judgeCleanupFailure({ error_kind: "cancelled", error_detail: null }, "e", "workspace").error_kind).toBe("cancelled");
    expect(judgeCleanupFailure({ error_kind: "oracle-failed", error_detail: null }, "e", "harness").error_kind).toBe("cleanup-failure");
  });

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
