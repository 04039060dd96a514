import { COST_DISAGREEMENT_THRESHOLD } from "@wfbench/result-row";

/** The row's reconciliation of the CLI's cost against the cost of record. */
export interface CostReconciliation {
  readonly cost_disagreement_ratio: number | null;
  readonly cost_disagreement_flagged: boolean;
}

/**
 * Compares the CLI's own cost (`cost_usd`) with the gateway's priced wire cost (`wire_cost_usd`, the cost of record):
 * the ratio is the gap relative to the record, flagged above COST_DISAGREEMENT_THRESHOLD. An unknown figure on either
 * side is never read as 0: ratio null, not flagged. A record of 0 beside a CLI figure above 0 has no finite ratio
 * (null) and is flagged. Pure.
 */
export function reconcileCost(cliCostUsd: number | null, wireCostUsd: number | null): CostReconciliation {
  if (cliCostUsd === null || wireCostUsd === null) return { cost_disagreement_ratio: null, cost_disagreement_flagged: false };
  const gap = Math.abs(cliCostUsd - wireCostUsd);
  if (wireCostUsd === 0) return gap === 0 ? { cost_disagreement_ratio: 0, cost_disagreement_flagged: false } : { cost_disagreement_ratio: null, cost_disagreement_flagged: true };
  // Rounded so the stored ratio is stable across float noise; the flag reads the exact value.
  const ratio = gap / wireCostUsd;
  return { cost_disagreement_ratio: Math.round(ratio * 1e6) / 1e6, cost_disagreement_flagged: ratio > COST_DISAGREEMENT_THRESHOLD };
}
