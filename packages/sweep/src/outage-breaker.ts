import { SYSTEMIC_OUTAGE_KINDS, type ResultRow } from "@wfbench/result-row";

/** The breaker's state after one row is folded in. */
export interface OutageFold {
  /** Consecutive systemic rows ending with this one (0 after a reset). */
  readonly streak: number;
  /** True from the row that reached the limit on: the sweep must start no further cell. */
  readonly tripped: boolean;
}

type BreakerRow = Pick<ResultRow, "error_kind"> & { readonly review_evidence_valid?: boolean | null | undefined };

/** True when this row extends the systemic-outage streak (reference §5.7), false when it resets it. */
export function isSystemicRow(row: BreakerRow): boolean {
  const kind = row.review_evidence_valid === false ? "review-evidence-invalid" : row.error_kind;
  return kind !== null && SYSTEMIC_OUTAGE_KINDS.has(kind);
}

/**
 * Whether the breaker could trip at any index ≤ `upTo`, given what is known so far: `known` maps each finished index
 * to {@link isSystemicRow} of its row; an index not in the map (running or not started) might still be systemic.
 * The scheduler starts cell `j` only when this is false for `upTo = j − workers`, so a trip never has more than
 * `workers − 1` cells started after it, however far the packed window runs ahead.
 */
export function couldTripBy(known: ReadonlyMap<number, boolean>, upTo: number, limit: number): boolean {
  if (limit === 0) return false;
  let possible = 0;
  for (let index = 0; index <= upTo; index += 1) {
    possible = known.get(index) === false ? 0 : possible + 1;
    if (possible >= limit) return true;
  }
  return false;
}

/** Folds rows, in canonical (task, run, arm) order, into the systemic-outage streak of reference §5.7. */
export interface OutageBreaker {
  fold(row: BreakerRow): OutageFold;
}

/**
 * The outage breaker (reference §5.7): a session-error, infra-error, cleanup-failure or review-evidence-invalid row
 * (an invalid review artifact counts whatever kind was recorded first) extends the streak, any other row resets it;
 * the streak carries across task boundaries. Trips once the streak reaches `limit` (an integer ≥ 1) and stays tripped;
 * a limit of 0 disables it (reference §2.1: the streak is still counted, it never trips). Trusts the caller to fold
 * rows in canonical order; refuses a negative or fractional limit.
 */
export function createOutageBreaker(limit: number): OutageBreaker {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`outage streak limit must be a whole number (0 disables), got ${limit}`);
  let streak = 0;
  let tripped = false;
  return {
    fold(row) {
      streak = isSystemicRow(row) ? streak + 1 : 0;
      if (limit > 0 && streak >= limit) tripped = true;
      return { streak, tripped };
    },
  };
}
