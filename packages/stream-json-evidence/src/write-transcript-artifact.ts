import { chmod, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "@wfbench/digest";
import { isDurableFsError, writeFileExclusive } from "@wfbench/durable-fs";
import { TRANSCRIPT_SOURCE, type TranscriptArtifactRecord } from "@wfbench/result-row";
import { EvidenceArtifactError } from "./errors.js";
import type { TranscriptArtifact } from "./redact-transcript.js";
import { SESSION_ID_PATTERN, TRANSCRIPT_PREFIX_PATTERN } from "./schema.js";

/** The row's record of a persisted transcript (the row contract's shape). */
export type { TranscriptArtifactRecord };

/**
 * Writes a redacted transcript as `<directory>/<prefix>-<sessionId>.jsonl` (directory 0700, file 0600, exclusive
 * no-follow create, file and directory fsynced) and checks the bytes on disk hash to the artifact's sha256. Trusts
 * only validated names.
 * @throws {EvidenceArtifactError} on an invalid name, an existing file or an I/O failure.
 */
export async function writeTranscriptArtifact(
  directory: string,
  name: { readonly prefix: string; readonly sessionId: string },
  artifact: TranscriptArtifact,
): Promise<TranscriptArtifactRecord> {
  if (!TRANSCRIPT_PREFIX_PATTERN.test(name.prefix)) throw new EvidenceArtifactError("EVIDENCE_ARTIFACT_NAME_INVALID", "transcript prefix must match [A-Za-z0-9._-]{1,200}");
  if (!SESSION_ID_PATTERN.test(name.sessionId)) throw new EvidenceArtifactError("EVIDENCE_ARTIFACT_NAME_INVALID", "session id must match [A-Za-z0-9_-]{1,128}");
  if (sha256Hex(artifact.bytes) !== artifact.sha256) throw new EvidenceArtifactError("EVIDENCE_ARTIFACT_WRITE_FAILED", "artifact bytes do not match its sha256");
  const path = join(directory, `${name.prefix}-${name.sessionId}.jsonl`);
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await chmod(directory, 0o700);
  } catch (cause) {
    throw new EvidenceArtifactError("EVIDENCE_ARTIFACT_WRITE_FAILED", `cannot prepare transcript directory ${directory}`, { cause });
  }
  try {
    // Exclusive, no-follow, 0600, fsynced, and the directory fsynced: the row may cite the file once this returns.
    await writeFileExclusive(path, artifact.bytes, { mode: 0o600 });
  } catch (cause) {
    const exists = isDurableFsError(cause) && cause.code === "DURABLE_FS_EXISTS";
    throw new EvidenceArtifactError(exists ? "EVIDENCE_ARTIFACT_EXISTS" : "EVIDENCE_ARTIFACT_WRITE_FAILED", `cannot create ${path}`, { cause });
  }
  const written = await readFile(path);
  const sha256 = sha256Hex(written);
  if (sha256 !== artifact.sha256) throw new EvidenceArtifactError("EVIDENCE_ARTIFACT_WRITE_FAILED", `${path} does not hash to the artifact's sha256`);
  return { path, sha256, bytes: written.length, source: TRANSCRIPT_SOURCE };
}
