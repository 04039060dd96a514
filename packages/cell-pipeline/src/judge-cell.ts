import type { ErrorDetail, ErrorKind } from "@wfbench/result-row";
import type { OwnOutputBound, StreamEnd } from "@wfbench/stream-json-evidence";

const OWN_OUTPUT_CAUSE: Readonly<Record<OwnOutputBound, string>> = {
  "capture-size": "its own output overflowed the capture",
  "nesting-depth": "its own output nested past the evidence parser's depth",
};

/** How the first session that failed with a session-error ended, as the harness saw it. */
export interface SessionEnding {
  /** The sandbox run's terminal state: `exited` means the harness sent no signal (no timeout, cancel or kill). */
  readonly processState: string;
  /** The CLI's exit code (128+N when it died from signal N). */
  readonly exitCode: number | null;
  /** Where the parent-captured stream stopped. */
  readonly streamEnd: StreamEnd;
}

/** What the metering gateway saw for the cell's token. */
export interface WireFacts {
  readonly requests: number;
  /** Requests the model side failed (HTTP errors, broken streams, unreachable upstream): an outage's trace. */
  readonly upstreamFailedRequests: number;
  /** Requests abandoned mid-flight: the CLI was waiting on the model when it went away. */
  readonly abortedRequests: number;
}

/** What the folded sessions of a cell say (summarizeSessions), and whether any of them was cancelled. */
export interface SessionFacts {
  readonly ok: boolean;
  readonly errorKind: ErrorKind | null;
  readonly errorDetail: ErrorDetail;
  readonly cancelled: boolean;
  /** The first session-error session's ending; null when no session ended in a session-error. */
  readonly failedEnding: SessionEnding | null;
  /**
   * The parser bound the session that set `errorKind` exceeded with its own output (what the model wrote and its tools
   * printed), which nothing but that session can make: its stdout capture's size, or an event's nesting depth. Absent:
   * none.
   */
  readonly ownOutputBound?: OwnOutputBound | null;
}

/** Who caused a failure that interrupted the cell or its removal. */
export type FailureOrigin = "harness" | "workspace";

/** Everything measured after the sessions of a cell that ran to the end. */
export interface MeasuredFacts {
  /** Review arms: no diff is owed, a changed skill is a review-evidence failure. */
  readonly review: boolean;
  /** Why the plan session's evidence is invalid (plan documents, phase boundary, skill bytes), or null. */
  readonly planFailure: string | null;
  /** Why the review session's evidence is invalid (the workspace changed), or null. */
  readonly reviewFailure: string | null;
  /** The evaluated skill files differ from their fingerprint before the sessions. */
  readonly skillsChanged: boolean;
  readonly verifyPassed: boolean;
  /** The hidden oracle passed, or the review matched its labels. */
  readonly oraclePassed: boolean;
  /** Why the hidden oracle could not be materialised or run (already redacted), or null / absent when it judged. */
  readonly oracleUnavailable?: string | null;
  /** Why the review artifact was refused (already redacted), or null when it parsed or the arm is not a review. */
  readonly reviewInvalid: string | null;
  /** The non-plan diff digest is the same after the sessions as before them. */
  readonly diffUnchanged: boolean;
  /** The sweep was cancelled while verify or the oracle ran. */
  readonly aborted: boolean;
  /** Why the harness could not measure what the candidate left (git refused the workspace it read before), or null. */
  readonly workspaceInvalid: string | null;
  readonly wire: WireFacts;
  /**
   * Why the wire shows spend of the cell's token that no CLI stream of the cell accounts for (a process other than the
   * CLI used the token), or null / absent when every served request is accounted for.
   */
  readonly unaccountedSpend?: string | null;
}

/** The facts of one cell at the point it ended. */
export type CellFacts =
  | { readonly stage: "setup-failed"; readonly detail: string }
  | { readonly stage: "sessions-cancelled"; readonly sessions: SessionFacts }
  | ({ readonly stage: "measured"; readonly sessions: SessionFacts } & MeasuredFacts)
  | { readonly stage: "interrupted"; readonly aborted: boolean; readonly detail: string; readonly origin: FailureOrigin };

/** The outcome fields of a row, plus diagnostics to append to its `evidence_diagnostics`. */
export interface CellVerdict {
  readonly ok: boolean;
  readonly error_kind: ErrorKind | null;
  readonly error_detail: ErrorDetail;
  readonly resolved: boolean;
  readonly diagnostics: readonly string[];
}

const MAX_DETAIL_CHARS = 2000;

/** Exit codes 129–192: the CLI died from signal 1–64 (the sandbox reports 128+N). */
function diedFromSignal(exitCode: number | null): boolean {
  return exitCode !== null && exitCode > 128 && exitCode <= 128 + 64;
}

/**
 * Whether a session-error was the agent ending its own session. The CLI exited on its own (state `exited`: the harness
 * sent no signal) with its stream stopped in the agent's own tool call (`tool-running`, or `tool-result` just after
 * it): a SIGINT interrupt the CLI recorded counts alone (the harness never sends one; a headless session has no
 * user); otherwise a death by signal (only a process inside the sandbox can signal the CLI, pid 1 of its namespace,
 * when the harness sent nothing) or a gateway that saw no upstream failure for the cell (no outage explains it).
 * Or the harness's timeout expired (`timeout` / `forced-kill`) while the agent's own tool ran: the stream stopped in
 * the tool call (on SIGTERM the CLI still writes the killed tool's result) and the gateway saw no upstream failure
 * and no request abandoned mid-flight (so the CLI was not waiting on a slow or hung model). Pure.
 */
export function isAbortedByAgent(ending: SessionEnding, wire: WireFacts): boolean {
  const noOutage = wire.upstreamFailedRequests === 0;
  const inTool = ending.streamEnd === "tool-running" || ending.streamEnd === "tool-result";
  if (ending.processState === "timeout" || ending.processState === "forced-kill") return inTool && noOutage && wire.abortedRequests === 0;
  if (ending.processState !== "exited") return false;
  if (ending.streamEnd === "interrupted") return true;
  if (!inTool) return false;
  return diedFromSignal(ending.exitCode) || noOutage;
}

/**
 * Decides a cell's ok / error_kind / error_detail / resolved from its facts (reference §4.2, §4.3), with the
 * precedence of the original: a cancelled session wins; a setup failure is `infra-error`, an interrupting failure
 * `infra-error` when the harness caused it and `workspace-invalid` when the candidate's workspace did (`cancelled`
 * when the sweep was cancelled); otherwise the first session error (`session-aborted-by-agent` instead of
 * `session-error` when {@link isAbortedByAgent}), then plan or review boundary failures of an ok session, then changed
 * skill files, then an invalid review artifact, then a workspace the harness could not measure (each a diagnostic
 * when a kind is already set), then verify-failed, then oracle-failed (oracle-unavailable when the oracle never ran) —
 * also over an evidence-unverified session whose own output overflowed its capture or nested past the parser's depth; a resolved implementation cell without a diff
 * is no-work-produced; spend of the cell's token outside its CLI makes a row that would be valid evidence-unverified
 * (a diagnostic on a row that already failed); a cancel during verify or the oracle makes the cell cancelled. Pure:
 * trusts the facts, reads nothing.
 */
export function judgeCell(facts: CellFacts): CellVerdict {
  if (facts.stage === "setup-failed") return { ok: false, error_kind: "infra-error", error_detail: facts.detail, resolved: false, diagnostics: [] };
  if (facts.stage === "interrupted") {
    const kind: ErrorKind = facts.aborted ? "cancelled" : facts.origin === "workspace" ? "workspace-invalid" : "infra-error";
    return { ok: false, error_kind: kind, error_detail: facts.detail, resolved: false, diagnostics: [] };
  }
  const { sessions } = facts;
  if (facts.stage === "sessions-cancelled") return { ok: false, error_kind: "cancelled", error_detail: sessions.errorDetail, resolved: false, diagnostics: [] };

  let ok = sessions.ok;
  let kind = sessions.errorKind;
  let detail = sessions.errorDetail;
  const diagnostics: string[] = [];
  const fail = (next: ErrorKind, why: ErrorDetail): void => {
    kind = next;
    detail = why;
  };
  if (kind === "session-error" && sessions.failedEnding !== null && isAbortedByAgent(sessions.failedEnding, facts.wire)) {
    kind = "session-aborted-by-agent";
    diagnostics.push(`the session ended inside the agent's own tool call, not by an outage (state ${sessions.failedEnding.processState}, exit ${String(sessions.failedEnding.exitCode)}, stream ${sessions.failedEnding.streamEnd}, ${facts.wire.requests} gateway request(s), ${facts.wire.upstreamFailedRequests} failed upstream, ${facts.wire.abortedRequests} abandoned mid-flight)`);
  }
  if (sessions.ok && facts.planFailure !== null) {
    ok = false;
    fail("plan-evidence-invalid", facts.planFailure);
  }
  if (sessions.ok && facts.reviewFailure !== null) {
    ok = false;
    fail("review-evidence-invalid", facts.reviewFailure);
  }
  if (kind === null && facts.skillsChanged) fail(facts.review ? "review-evidence-invalid" : "implementation-evidence-invalid", "the evaluated skill files changed during the session");
  // The first error kind and detail are kept; an unreadable artifact only sets them when nothing failed before.
  if (facts.reviewInvalid !== null) {
    if (kind === null) fail("review-evidence-invalid", `review output invalid: ${facts.reviewInvalid}`);
    else diagnostics.push(`review output invalid: ${facts.reviewInvalid}`);
  }
  if (facts.workspaceInvalid !== null) {
    if (kind === null) fail("workspace-invalid", facts.workspaceInvalid);
    else diagnostics.push(`workspace invalid: ${facts.workspaceInvalid}`);
  }

  let resolved = ok && kind === null && facts.verifyPassed && facts.oraclePassed;
  // An overflowed capture or an over-deep event is unverifiable evidence (excluded), but only the session itself can
  // make its output that long or that deep, and verify and the oracle judged the workspace it left: a failure there
  // stays that counted failure, or a failing candidate could pad its transcript past the bound (or nest one tool input
  // 300 levels) to launder the row into an exclusion. A pass is never credited without evidence: that row stays
  // evidence-unverified.
  const bound = sessions.ownOutputBound ?? null;
  if (kind === "evidence-unverified" && bound !== null && (!facts.verifyPassed || !facts.oraclePassed)) {
    diagnostics.push(`the session's evidence is unverifiable (${OWN_OUTPUT_CAUSE[bound]}), but ${facts.verifyPassed ? "the hidden oracle" : "verify"} failed on the workspace it left: counted as that failure, not excluded`);
    kind = null;
  }
  if (kind === null && !facts.verifyPassed) kind = "verify-failed";
  else if (kind === null && !facts.oraclePassed) {
    // §4.3: no snapshot verdict is a valid negative, like a failed oracle; the reason goes into the detail.
    if (facts.oracleUnavailable != null) fail("oracle-unavailable", `hidden oracle unavailable: ${facts.oracleUnavailable}`);
    else kind = "oracle-failed";
  }
  // Only implementation arms owe a diff (Appendix B); a review is read-only by design.
  if (!facts.review && resolved && facts.diffUnchanged) {
    resolved = false;
    kind = "no-work-produced";
  }
  // Spend outside the CLI means the cell's token left the CLI, so nothing the cell shows can be trusted: a row that
  // would count as valid becomes evidence-unverified. A row that already failed keeps its own kind (turning a failure
  // into an excluded row would let a failing candidate launder it) and gets the note.
  if (facts.unaccountedSpend != null) {
    if (kind === null) {
      ok = false;
      resolved = false;
      fail("evidence-unverified", facts.unaccountedSpend);
    } else diagnostics.push(facts.unaccountedSpend);
  }
  // A cancel that lands during verify or the oracle makes them fail; that is not a verdict on the candidate.
  if (facts.aborted) {
    ok = false;
    resolved = false;
    fail("cancelled", "the sweep was cancelled before the cell finished");
  }
  return { ok, error_kind: kind, error_detail: detail, resolved, diagnostics };
}

/**
 * The verdict when removing the cell afterwards failed (reference §4.2), keeping the primary kind and detail in the
 * message (≤ 2000 characters). `harness`: the harness's own part of the cell would not go, so `cleanup-failure`
 * overrides the row (excluded, as in the original). `workspace`: what the candidate wrote (its workspace, home, tmp
 * or review output, after its sessions ran) would not go: `workspace-invalid`, a valid unresolved run, unless the
 * cell was cancelled. Pure.
 */
export function judgeCleanupFailure(primary: Pick<CellVerdict, "error_kind" | "error_detail">, cleanup: string, origin: FailureOrigin = "harness"): CellVerdict {
  const before = `${primary.error_kind ?? "none"}: ${typeof primary.error_detail === "string" ? primary.error_detail : JSON.stringify(primary.error_detail)}`;
  const kind: ErrorKind = origin === "harness" ? "cleanup-failure" : primary.error_kind === "cancelled" ? "cancelled" : "workspace-invalid";
  const what = origin === "harness" ? "cleanup" : "cleanup of the candidate's files";
  return { ok: false, error_kind: kind, error_detail: `primary=${before}; ${what}: ${cleanup}`.slice(0, MAX_DETAIL_CHARS), resolved: false, diagnostics: [] };
}
