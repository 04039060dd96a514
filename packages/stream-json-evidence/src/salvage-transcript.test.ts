import { describe, expect, it } from "vitest";
import { assistant, encode, init, jsonl, result, toolUse } from "../test/support/events.js";
import { parseEvidenceBytes } from "./parse-evidence-stream.js";
import { sha256Hex } from "@wfbench/digest";
import { SALVAGE_TRUNCATED_TYPE, SALVAGE_UNPARSED_TYPE, salvageTranscript } from "./salvage-transcript.js";

const SECRET = "minted-cell-token-4f9a2b";

function lines(bytes: Uint8Array): Record<string, unknown>[] {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  expect(text.endsWith("\n")).toBe(true);
  return text.slice(0, -1).split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
}

function salvaged(bytes: Uint8Array, options: Parameters<typeof salvageTranscript>[1] = {}) {
  const outcome = salvageTranscript(bytes, options);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.value;
}

describe("salvageTranscript", () => {
  it("keeps an over-deep line as redacted text instead of overflowing the stack", () => {
    const deep = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"k":"${SECRET}","x":${"[".repeat(50_000)}${"]".repeat(50_000)}}}]}}`;
    const value = salvaged(encode(`${JSON.stringify(init())}\n${deep}\n`), { secrets: [SECRET] });
    const events = lines(value.bytes);
    expect(events[1]).toMatchObject({ type: SALVAGE_UNPARSED_TYPE, line: 2, reason: "nesting-too-deep", text_truncated: true });
    expect(new TextDecoder().decode(value.bytes)).not.toContain(SECRET);
  });

  it("keeps every event of a stream refused for an event after the result, structurally redacted, in order", () => {
    const raw = encode(jsonl([init(), assistant([toolUse("t1", "Bash", { command: `echo ${SECRET}`, password: "hunter2" })]), result(), assistant([{ type: "text", text: "late" }])]));
    const parse = parseEvidenceBytes(raw);
    expect(parse.ok === false && parse.error.code).toBe("EVIDENCE_EVENT_AFTER_RESULT");
    const value = salvaged(raw, { secrets: [SECRET] });
    const events = lines(value.bytes);
    expect(events.map((event) => event["type"])).toEqual(["system", "assistant", "result", "assistant"]);
    const text = new TextDecoder().decode(value.bytes);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("hunter2");
    expect(value).toMatchObject({ eventCount: 4, keptLines: 4, unparsedLines: 0, droppedLines: 0, truncated: false, sessionId: "s-1", source: "parent-captured-stream-json" });
    expect(value.sha256).toBe(sha256Hex(value.bytes));
    expect(value.byteLength).toBe(value.bytes.length);
  });

  it("keeps a malformed line as a redacted unparsed-line record and carries on after it", () => {
    const broken = `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":"curl -H 'Authorization: Bearer ${SECRET}'","password":"hunter2","token":"raw-tok-999"`;
    const raw = encode(`${jsonl([init()])}${broken}\n${jsonl([result()])}`);
    const value = salvaged(raw, { secrets: [SECRET] });
    const events = lines(value.bytes);
    expect(events).toHaveLength(3);
    expect(events[1]).toMatchObject({ type: SALVAGE_UNPARSED_TYPE, line: 2, reason: "malformed-json" });
    const kept = String(events[1]?.["text"]);
    expect(kept).toContain('"command":"curl');
    expect(kept).not.toContain(SECRET);
    expect(kept).not.toContain("hunter2");
    expect(kept).not.toContain("raw-tok-999");
    expect(events[2]?.["type"]).toBe("result");
    expect(value).toMatchObject({ keptLines: 3, unparsedLines: 1, droppedLines: 0, truncated: false });
  });

  it("redacts a secret written with JSON escapes inside an unparseable line", () => {
    const escaped = SECRET.replace("t", "\\u0074");
    const raw = encode(`{"type":"user","text":"${escaped}", oops}\n`);
    const kept = String(lines(salvaged(raw, { secrets: [SECRET] }).bytes)[0]?.["text"]);
    expect(kept).not.toContain(escaped);
    expect(kept).toContain("[REDACTED]");
  });

  it("keeps invalid UTF-8 and non-object JSON lines as unparsed records with their reason", () => {
    const raw = new Uint8Array([...encode('{"type":"system"}\n'), 0x7b, 0xff, 0xfe, 0x7d, 0x0a, ...encode("[1,2]\n"), ...encode('{"n":1e999}\n')]);
    const events = lines(salvaged(raw).bytes);
    expect(events.map((event) => [event["type"], event["reason"]])).toEqual([
      ["system", undefined],
      [SALVAGE_UNPARSED_TYPE, "invalid-utf8"],
      [SALVAGE_UNPARSED_TYPE, "not-an-object"],
      [SALVAGE_UNPARSED_TYPE, "non-finite-number"],
    ]);
  });

  it("bounds the output: stops before the byte bound and says how many lines were dropped", () => {
    const many = Array.from({ length: 200 }, (_, index) => ({ type: "assistant", index, pad: "x".repeat(100) }));
    const value = salvaged(encode(jsonl(many)), { maxBytes: 4096 });
    expect(value.byteLength).toBeLessThanOrEqual(4096);
    expect(value.truncated).toBe(true);
    const events = lines(value.bytes);
    const marker = events.at(-1);
    expect(marker?.["type"]).toBe(SALVAGE_TRUNCATED_TYPE);
    expect(marker?.["dropped_lines"]).toBe(value.droppedLines);
    expect(value.keptLines + value.droppedLines).toBe(200);
    expect(events.slice(0, -1).map((event) => event["index"])).toEqual(Array.from({ length: value.keptLines }, (_, index) => index));
  });

  it("caps one huge unparsed line instead of dropping everything after it", () => {
    const raw = encode(`{"type":"x","t":"${"y".repeat(100_000)}\n${jsonl([result()])}`);
    const value = salvaged(raw, { maxLineChars: 1000 });
    const events = lines(value.bytes);
    expect(events[0]).toMatchObject({ type: SALVAGE_UNPARSED_TYPE, text_truncated: true });
    expect(String(events[0]?.["text"]).length).toBeLessThanOrEqual(1000);
    expect(events[1]?.["type"]).toBe("result");
  });

  it("falls back to a text record when structural redaction would collide two keys", () => {
    const raw = encode(`${JSON.stringify({ type: "user", [`a${SECRET}`]: 1, "a[REDACTED]": 2 })}\n`);
    const events = lines(salvaged(raw, { secrets: [SECRET] }).bytes);
    expect(events[0]).toMatchObject({ type: SALVAGE_UNPARSED_TYPE, reason: "redaction-collision" });
    expect(String(events[0]?.["text"])).not.toContain(SECRET);
  });

  it("takes the session id only from a well-formed event, and refuses a capture with no line at all", () => {
    expect(salvaged(encode('{"type":"system","session_id":"../etc"}\n{"type":"x","session_id":"ok-1"}\n')).sessionId).toBe("ok-1");
    expect(salvaged(encode("not json\n")).sessionId).toBeNull();
    const empty = salvageTranscript(encode("\n \n"));
    expect(empty.ok === false && empty.error.code).toBe("EVIDENCE_EMPTY_STREAM");
  });
});
