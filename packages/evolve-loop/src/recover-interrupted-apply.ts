import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { isRecoveryJournalName, nodeFsOperations, recoverOverlayTransaction } from "@wfbench/promotion-gate";
import { EvolveLoopError } from "./errors.js";

/**
 * Finishes any interrupted apply in the repository (its recovery journals), before a new apply starts; `print` gets one
 * line per recovered journal. Trusts promotion-gate's recoverOverlayTransaction to act only on a journal the apply could
 * have written, with this suite's skills as the destinations it may name (the journal lies in the user's working tree,
 * so it is untrusted). Throws EVOLVE_LOOP_BAD_INPUT, touching nothing the journal names, for a journal that is
 * refused or cannot be recovered.
 */
export async function recoverInterruptedApply(repoRoot: string, skills: readonly string[], print: (line: string) => void): Promise<void> {
  for (const name of (await readdir(repoRoot)).sort()) {
    if (!isRecoveryJournalName(name)) continue;
    const recovered = recoverOverlayTransaction(join(repoRoot, name), nodeFsOperations, { skills });
    if (!recovered.ok) {
      throw new EvolveLoopError(
        "EVOLVE_LOOP_BAD_INPUT",
        `${join(repoRoot, name)} was refused (${recovered.error.code}): ${recovered.error.message}; nothing it names was touched: inspect it, restore the skill files by hand and remove it before --apply`,
      );
    }
    print(`recovered an interrupted apply (${name}): ${recovered.value.outcome}${recovered.value.restored.length === 0 ? "" : `, restored ${recovered.value.restored.join(", ")}`}\n`);
  }
}
