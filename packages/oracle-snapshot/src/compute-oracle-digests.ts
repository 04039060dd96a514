import { compareCodePoints, hashFrames, sha256Hex } from "@wfbench/digest";

/** One captured file as far as digests are concerned. */
export interface OracleDigestInput {
  readonly target: string;
  readonly payload: Uint8Array;
}

/** One entry of the binding's `oracle_files` list. */
export interface OracleFileBinding {
  readonly target: string;
  readonly sha256: string;
  readonly size: number;
}

/** The oracle part of a task binding; key names are those of the original harness's bindings. */
export interface OracleBinding {
  readonly oracle_digest: string;
  readonly oracle_command_digest: string;
  readonly oracle_manifest_digest: string;
  readonly oracle_files: readonly OracleFileBinding[];
}

/**
 * Computes the three oracle digests and the file list from a command and captured payloads. Trusts the payloads
 * to be the captured bytes; sorts by target itself so callers' order never matters.
 */
export function computeOracleDigests(command: string, files: readonly OracleDigestInput[]): OracleBinding {
  // Code-point order, as the original's sorted() (validated targets hold no lone surrogate).
  const sorted = [...files].sort((left, right) => compareCodePoints(left.target, right.target));
  const oracleFiles = sorted.map((file) => ({
    target: file.target,
    sha256: sha256Hex(file.payload),
    size: file.payload.byteLength,
  }));
  return {
    oracle_digest: hashFrames([command, ...sorted.flatMap((file) => [file.target, file.payload])]),
    oracle_command_digest: sha256Hex(command),
    oracle_manifest_digest: hashFrames(oracleFiles.flatMap((file) => [file.target, file.sha256, String(file.size)])),
    oracle_files: oracleFiles,
  };
}
