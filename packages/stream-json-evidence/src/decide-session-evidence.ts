import type { SessionOutcome } from "./classify-outcome.js";
import type { SkillProof } from "./prove-skill-use.js";

/** Row-level evidence verdict of one session. */
export interface SessionEvidence {
  readonly ok: boolean;
  /** The primary error kind: the session's own, else skill-not-invoked, else evidence-unverified. */
  readonly errorKind: "session-error" | "cancelled" | "skill-not-invoked" | "evidence-unverified" | null;
  /** true / false / null (unverifiable or no skill expected). */
  readonly skillInvoked: boolean | null;
  readonly transcriptMissing: boolean;
  /** Human-readable diagnostics for `evidence_diagnostics`. */
  readonly diagnostics: readonly string[];
  /**
   * The bound of the parser that only the session's own output (what the model wrote, what its tools printed) can
   * exceed, when that alone made the evidence unverifiable: the capture's size or an event's nesting depth; else null.
   */
  readonly ownOutputBound: OwnOutputBound | null;
}

/** A parser bound that only a session's own output can exceed (see SessionEvidence.ownOutputBound). */
export type OwnOutputBound = "capture-size" | "nesting-depth";

/** Inputs of {@link decideSessionEvidence}. */
export interface SessionEvidenceInput {
  readonly outcome: SessionOutcome;
  /** null for arms that expect no skill. */
  readonly proof: SkillProof | null;
  /** Whether the redacted transcript was written (its sha recorded). */
  readonly transcriptPersisted: boolean;
  /** Extra diagnostics from the caller, e.g. a transcript persistence failure. */
  readonly extraDiagnostics?: readonly string[];
}

// A tool input nested past the parser's depth is printed by a CLI that ran to its end: like an overflowed capture, the
// session is unverifiable evidence, not a session error (which would also feed the outage breaker).
const UNVERIFIABLE_STREAM = new Set(["EVIDENCE_OVERSIZE", "EVIDENCE_CAPTURE_MISSING", "EVIDENCE_NESTING_TOO_DEEP"]);
const OWN_OUTPUT_BOUNDS: ReadonlyMap<string, OwnOutputBound> = new Map([
  ["EVIDENCE_OVERSIZE", "capture-size"],
  ["EVIDENCE_NESTING_TOO_DEEP", "nesting-depth"],
]);

/**
 * Applies the evidence rules to one session: an unverifiable proof is null plus diagnostics; a proven absence fails an
 * otherwise ok session as skill-not-invoked (a diagnostic only on a failed one); any diagnostic left on a still-ok
 * session makes it evidence-unverified with the transcript counted missing. A capture that overflowed, or an event
 * nested past the parser's depth, on a cleanly exited process is unverifiable evidence rather than a session error.
 * Trusts the classified outcome and proof as given.
 */
export function decideSessionEvidence(input: SessionEvidenceInput): SessionEvidence {
  const { outcome, proof } = input;
  const diagnostics: string[] = [];
  let ok = outcome.ok;
  let errorKind: SessionEvidence["errorKind"] = outcome.errorKind;
  const overflowOnly =
    outcome.reasons.length === 1 && outcome.reasons[0] === "event-stream" && outcome.eventStreamError !== null && UNVERIFIABLE_STREAM.has(outcome.eventStreamError.code);
  let ownOutputBound: OwnOutputBound | null = null;
  if (overflowOnly && outcome.eventStreamError !== null) {
    ownOutputBound = OWN_OUTPUT_BOUNDS.get(outcome.eventStreamError.code) ?? null;
    ok = true;
    errorKind = null;
    diagnostics.push(`${outcome.eventStreamError.code}: ${outcome.eventStreamError.message}`);
  }
  let skillInvoked: boolean | null = null;
  if (proof !== null && outcome.eventStreamError === null) {
    skillInvoked = proof.skillInvoked;
    if (proof.skillInvoked === null) {
      for (const diagnostic of proof.diagnostics) diagnostics.push(`${diagnostic.code}: ${diagnostic.message}${diagnostic.line === null ? "" : ` (line ${diagnostic.line})`}`);
    } else if (!proof.skillInvoked) {
      if (ok) {
        ok = false;
        errorKind = "skill-not-invoked";
      } else {
        diagnostics.push(`skill ${proof.expectedSkill} was not invoked`);
      }
    }
  }
  const extra = input.extraDiagnostics ?? [];
  // An unpersisted transcript is missing evidence in itself; the caller's own diagnostic, when given, says why.
  if (!input.transcriptPersisted && extra.length === 0) diagnostics.push("transcript was not persisted");
  diagnostics.push(...extra);
  let transcriptMissing = !input.transcriptPersisted;
  if (ok && diagnostics.length > 0) {
    ok = false;
    errorKind = "evidence-unverified";
    transcriptMissing = true;
  }
  return { ok, errorKind, skillInvoked, transcriptMissing, diagnostics, ownOutputBound: errorKind === "evidence-unverified" ? ownOutputBound : null };
}
