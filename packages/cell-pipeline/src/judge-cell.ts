import type { ErrorDetail, ErrorKind } from "@wfbench/result-row";

/** What the folded sessions of a cell say (summarizeSessions), and whether any of them was cancelled. */
export interface SessionFacts {
  readonly ok: boolean;
  readonly errorKind: ErrorKind | null;
  readonly errorDetail: ErrorDetail;
  readonly cancelled: boolean;
}

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
  /** Why the review artifact was refused (already redacted), or null when it parsed or the arm is not a review. */
  readonly reviewInvalid: string | null;
  /** The non-plan diff digest is the same after the sessions as before them. */
  readonly diffUnchanged: boolean;
  /** The sweep was cancelled while verify or the oracle ran. */
  readonly aborted: boolean;
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
  | { readonly stage: "interrupted"; readonly aborted: boolean; readonly detail: string };

/** The outcome fields of a row, plus diagnostics to append to its `evidence_diagnostics`. */
export interface CellVerdict {
  readonly ok: boolean;
  readonly error_kind: ErrorKind | null;
  readonly error_detail: ErrorDetail;
  readonly resolved: boolean;
  readonly diagnostics: readonly string[];
}

const MAX_DETAIL_CHARS = 2000;

/**
 * Decides a cell's ok / error_kind / error_detail / resolved from its facts (reference §4.2, §4.3), with the
 * precedence of the original: a cancelled session wins; an infra failure or setup failure is `infra-error` (or
 * `cancelled` when the sweep was cancelled); otherwise the first session error, then plan or review boundary failures
 * of an ok session, then changed skill files, then an invalid review artifact (a diagnostic when a kind is already
 * set), then verify-failed, then oracle-failed; a resolved implementation cell without a diff is no-work-produced;
 * spend of the cell's token outside its CLI makes a row that would be valid evidence-unverified (a diagnostic on a row
 * that already failed); a cancel during verify or the oracle makes the cell cancelled. Pure: trusts the facts, reads nothing.
 */
export function judgeCell(facts: CellFacts): CellVerdict {
  if (facts.stage === "setup-failed") return { ok: false, error_kind: "infra-error", error_detail: facts.detail, resolved: false, diagnostics: [] };
  if (facts.stage === "interrupted") return { ok: false, error_kind: facts.aborted ? "cancelled" : "infra-error", error_detail: facts.detail, resolved: false, diagnostics: [] };
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

  let resolved = ok && kind === null && facts.verifyPassed && facts.oraclePassed;
  if (kind === null && !facts.verifyPassed) kind = "verify-failed";
  else if (kind === null && !facts.oraclePassed) kind = "oracle-failed";
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
 * The verdict when removing the cell's clone failed afterwards (reference §4.2): `cleanup-failure` overrides the
 * row, keeping the primary kind and detail in the message (≤ 2000 characters). Pure.
 */
export function judgeCleanupFailure(primary: Pick<CellVerdict, "error_kind" | "error_detail">, cleanup: string): CellVerdict {
  const before = `${primary.error_kind ?? "none"}: ${typeof primary.error_detail === "string" ? primary.error_detail : JSON.stringify(primary.error_detail)}`;
  return { ok: false, error_kind: "cleanup-failure", error_detail: `primary=${before}; cleanup: ${cleanup}`.slice(0, MAX_DETAIL_CHARS), resolved: false, diagnostics: [] };
}
