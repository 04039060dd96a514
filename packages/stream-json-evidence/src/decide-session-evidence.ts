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
}

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

const UNVERIFIABLE_STREAM = new Set(["EVIDENCE_OVERSIZE", "EVIDENCE_CAPTURE_MISSING"]);

/**
 * Applies the evidence rules to one session: an unverifiable proof is null plus diagnostics; a proven absence fails an
 * otherwise ok session as skill-not-invoked (a diagnostic only on a failed one); any diagnostic left on a still-ok
 * session makes it evidence-unverified with the transcript counted missing. A capture that overflowed on a cleanly
 * exited process is unverifiable evidence rather than a session error. Trusts the classified outcome and proof as given.
 */
export function decideSessionEvidence(input: SessionEvidenceInput): SessionEvidence {
  const { outcome, proof } = input;
  const diagnostics: string[] = [];
  let ok = outcome.ok;
  let errorKind: SessionEvidence["errorKind"] = outcome.errorKind;
  const overflowOnly =
    outcome.reasons.length === 1 && outcome.reasons[0] === "event-stream" && outcome.eventStreamError !== null && UNVERIFIABLE_STREAM.has(outcome.eventStreamError.code);
  if (overflowOnly && outcome.eventStreamError !== null) {
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
  return { ok, errorKind, skillInvoked, transcriptMissing, diagnostics };
}
