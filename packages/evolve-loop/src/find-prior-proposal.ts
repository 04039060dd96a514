import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";

// A proposal the harness wrote is 0600; a file with group/other bits, a link or a special file beside the results is
// not one of its proposals, so it never reaches the next proposer's evidence.
function isOwnerOnlyFile(path: string): boolean {
  try {
    const info = lstatSync(path);
    return info.isFile() && (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * The proposal a generation hands the next proposer (reference §9.1): its own `proposer/proposal.md`, when that is an
 * owner-only regular file; null otherwise. Trusts nothing at the path.
 */
export function findGenerationProposal(genDir: string): string | null {
  const path = join(genDir, "proposer", "proposal.md");
  return isOwnerOnlyFile(path) ? path : null;
}

/**
 * The seed's prior proposal (reference §9.1, `<seed>/../proposal.md`): the proposal beside the seed results when the
 * seed is an earlier generation's `bench/` — this loop's `gen-g/proposer/proposal.md`, else the original harness's
 * `gen-g/proposal.md` — each only as an owner-only regular file; null when there is none. Trusts nothing at the paths.
 */
export function findSeedProposal(seedResults: string): string | null {
  const generation = dirname(seedResults);
  return findGenerationProposal(generation) ?? (isOwnerOnlyFile(join(generation, "proposal.md")) ? join(generation, "proposal.md") : null);
}
