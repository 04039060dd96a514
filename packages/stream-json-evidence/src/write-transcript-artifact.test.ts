import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "@wfbench/digest";
import { redactTranscript, type TranscriptArtifact } from "./redact-transcript.js";
import { writeTranscriptArtifact } from "./write-transcript-artifact.js";

let root = "";
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "evidence-artifact-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function artifact(): TranscriptArtifact {
  const outcome = redactTranscript([{ type: "system", subtype: "init" }, { type: "result", subtype: "success" }]);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.value;
}

describe("writeTranscriptArtifact", () => {
  it("writes 0600 into a 0700 directory and records the sha256 of the bytes on disk", async () => {
    const dir = join(root, "transcripts");
    const value = artifact();
    const record = await writeTranscriptArtifact(dir, { prefix: "task-review-run0", sessionId: "3c9a1f2e-0b4d" }, value);
    expect(record).toEqual({ path: join(dir, "task-review-run0-3c9a1f2e-0b4d.jsonl"), sha256: value.sha256, bytes: value.byteLength, source: "parent-captured-stream-json" });
    expect(sha256Hex(new Uint8Array(await readFile(record.path)))).toBe(value.sha256);
    expect((await stat(record.path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it("never overwrites an existing transcript", async () => {
    await writeTranscriptArtifact(root, { prefix: "p", sessionId: "s" }, artifact());
    await expect(writeTranscriptArtifact(root, { prefix: "p", sessionId: "s" }, artifact())).rejects.toMatchObject({ code: "EVIDENCE_ARTIFACT_EXISTS" });
  });

  it.each([
    [{ prefix: "../escape", sessionId: "s" }],
    [{ prefix: "p", sessionId: "a/b" }],
    [{ prefix: "p", sessionId: "" }],
    [{ prefix: "p", sessionId: "x".repeat(129) }],
  ])("refuses the name %j", async (name) => {
    await expect(writeTranscriptArtifact(root, name, artifact())).rejects.toMatchObject({ code: "EVIDENCE_ARTIFACT_NAME_INVALID" });
  });

  it("refuses an artifact whose bytes no longer match its sha256", async () => {
    const tampered = { ...artifact(), bytes: new TextEncoder().encode('{"type":"forged"}\n') };
    await expect(writeTranscriptArtifact(root, { prefix: "p", sessionId: "s" }, tampered)).rejects.toMatchObject({ code: "EVIDENCE_ARTIFACT_WRITE_FAILED" });
  });
});
