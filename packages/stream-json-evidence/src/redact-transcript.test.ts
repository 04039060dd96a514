import { describe, expect, it } from "vitest";
import { assistant, encode, init, jsonl, result, toolUse } from "../test/support/events.js";
import { parseEvidenceBytes } from "./parse-evidence-stream.js";
import { sha256Hex } from "@wfbench/digest";
import { redactTranscript } from "./redact-transcript.js";
import type { JsonObject } from "./schema.js";

function parsed(events: JsonObject[]) {
  const outcome = parseEvidenceBytes(encode(jsonl(events)));
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.value;
}

describe("redactTranscript", () => {
  it("renders canonical JSONL: sorted keys, compact, raw UTF-8, one event per line, trailing events kept", () => {
    const stream = parsed([{ type: "system", z: 1, a: { y: "é👋", b: [2, 1] } }, result({ session_id: "s" }), { type: "system", subtype: "late" }]);
    const artifact = redactTranscript(stream);
    expect(artifact.ok).toBe(true);
    if (!artifact.ok) return;
    const text = new TextDecoder().decode(artifact.value.bytes);
    const lines = text.split("\n");
    expect(lines[0]).toBe('{"a":{"b":[2,1],"y":"é👋"},"type":"system","z":1}');
    expect(lines.at(-1)).toBe("");
    expect(lines.length).toBe(4);
    expect(artifact.value).toMatchObject({ eventCount: 3, byteLength: artifact.value.bytes.length, source: "parent-captured-stream-json" });
    expect(artifact.value.sha256).toBe(sha256Hex(artifact.value.bytes));
    expect(artifact.value.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is deterministic whatever the key order of the input", () => {
    const a = redactTranscript([{ type: "x", a: 1, b: 2 }]);
    const b = redactTranscript([{ b: 2, type: "x", a: 1 }]);
    expect(a.ok && b.ok && a.value.sha256 === b.value.sha256).toBe(true);
  });

  it("removes literal secrets handed in and known token shapes", () => {
    const stream = parsed([init(), assistant([toolUse("t", "Bash", { command: "echo minted-abc-123 sk-ant-api03-zzzzzzzzzz", token: "anything" })]), result()]);
    const artifact = redactTranscript(stream, { secrets: ["minted-abc-123"] });
    if (!artifact.ok) throw new Error(artifact.error.message);
    const text = new TextDecoder().decode(artifact.value.bytes);
    expect(text).not.toContain("minted-abc-123");
    expect(text).not.toContain("sk-ant-api03-zzzzzzzzzz");
    expect(text).not.toContain("anything");
    expect(text).toContain('"token":"[REDACTED]"');
  });

  it("accepts the partial events of a killed session", () => {
    const outcome = parseEvidenceBytes(encode(jsonl([init(), assistant([{ type: "text", text: "x" }])])));
    if (outcome.ok || outcome.partialEvents === null) throw new Error("expected a partial stream");
    const artifact = redactTranscript(outcome.partialEvents);
    expect(artifact.ok && artifact.value.eventCount).toBe(2);
  });

  it("refuses a key collision after redaction", () => {
    const artifact = redactTranscript([{ type: "x", "s-one": 1, "s-two": 2 }], { secrets: ["s-one", "s-two"] });
    expect(!artifact.ok && artifact.error.code).toBe("EVIDENCE_REDACTION_KEY_COLLISION");
  });

  it("refuses output over the byte bound", () => {
    const artifact = redactTranscript([{ type: "x", text: "a".repeat(100) }], { maxBytes: 64 });
    expect(!artifact.ok && artifact.error.code).toBe("EVIDENCE_TRANSCRIPT_OVERSIZE");
  });

  it("throws EVIDENCE_INVALID_OPTIONS on bad options", () => {
    expect(() => redactTranscript([], { maxBytes: -1 })).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
    expect(() => redactTranscript([], { secrets: [1 as unknown as string] })).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
  });
});
