import { randomBytes } from "node:crypto";
import { sha256Hex } from "@wfbench/digest";

/** Per-cell bearer tokens: minted by the runner, valid for one cell until revoked. */
export interface CellTokenRegistry {
  /** Mints a fresh random token for `cellId` (LiteLLM-compatible `sk-` prefix); earlier tokens of the cell stay valid. */
  mintCellToken(cellId: string): string;
  /** Revokes every token of `cellId`; returns how many were live. */
  revokeCell(cellId: string): number;
  /** The cell a presented token belongs to, or null for unknown and revoked tokens. */
  resolveToken(token: string): string | null;
}

function digest(token: string): string {
  return sha256Hex(token);
}

/**
 * Creates an in-memory token registry. Tokens are stored only as sha256 digests, so a heap dump of the map does not
 * yield a usable token; a cell id must be a non-blank string.
 */
export function createCellTokenRegistry(): CellTokenRegistry {
  const byDigest = new Map<string, string>();
  return {
    mintCellToken(cellId) {
      if (cellId.trim() === "") throw new TypeError("mintCellToken: cell id is blank");
      const token = `sk-wfb-${randomBytes(24).toString("hex")}`;
      byDigest.set(digest(token), cellId);
      return token;
    },
    revokeCell(cellId) {
      let count = 0;
      for (const [key, owner] of byDigest) {
        if (owner === cellId) {
          byDigest.delete(key);
          count += 1;
        }
      }
      return count;
    },
    resolveToken(token) {
      if (token === "") return null;
      return byDigest.get(digest(token)) ?? null;
    },
  };
}
