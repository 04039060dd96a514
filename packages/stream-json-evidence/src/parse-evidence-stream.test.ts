import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistant, encode, init, jsonl, result } from "../test/support/events.js";
import { isEvidenceError } from "./errors.js";
import { createEvidenceStreamParser, parseEvidenceBytes, parseEvidenceStream } from "./parse-evidence-stream.js";
import { MAX_EVENT_DEPTH, type StreamEvent } from "./schema.js";

const good = jsonl([init(["a"]), assistant([{ type: "text", text: "héllo 👋 — ünïcode" }]), result()]);

async function* fromChunks(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.slice(start, point));
    start = point;
  }
  chunks.push(bytes.slice(start));
  return chunks;
}

describe("parseEvidenceStream", () => {
  describe("a well-formed capture", () => {
    it("returns the window up to the result with line numbers", () => {
      const parsed = parseEvidenceBytes(encode(`\n${good}\n   \n`));
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(parsed.value.events.map((event) => event.type)).toEqual(["system", "assistant", "result"]);
      expect(parsed.value.eventLines).toEqual([2, 3, 4]);
      expect(parsed.value.resultLine).toBe(4);
      expect(parsed.value.result["subtype"]).toBe("success");
      expect(parsed.value.lineCount).toBe(6);
    });

    it("accepts CRLF line ends and a valid last line without a newline", () => {
      const text = `${JSON.stringify(init())}\r\n${JSON.stringify(result())}`;
      const parsed = parseEvidenceBytes(encode(text));
      expect(parsed.ok && parsed.value.events.length).toBe(2);
    });

    it("keeps system events after the result out of the evidence window", () => {
      const parsed = parseEvidenceBytes(encode(good + jsonl([{ type: "system", subtype: "task_notification" }])));
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(parsed.value.events.at(-1)?.type).toBe("result");
      expect(parsed.value.trailingEvents).toEqual([{ type: "system", subtype: "task_notification" }]);
    });

    it("leaves NaN inside strings alone", () => {
      const parsed = parseEvidenceBytes(encode(jsonl([init(), assistant([{ type: "text", text: "NaN Infinity 1e999" }]), result()])));
      expect(parsed.ok).toBe(true);
    });

    it("calls onEvent in order with line numbers, including trailing system events", () => {
      const seen: [string, number][] = [];
      const parsed = parseEvidenceBytes(encode(good + jsonl([{ type: "system", subtype: "status" }])), {
        onEvent: (event: StreamEvent, line: number) => seen.push([event.type, line]),
      });
      expect(parsed.ok).toBe(true);
      expect(seen).toEqual([["system", 1], ["assistant", 2], ["result", 3], ["system", 4]]);
    });
  });

  describe("refusals", () => {
    it.each([
      ["a bare array", `${JSON.stringify(init())}\n[1,2]\n`, "EVIDENCE_NOT_AN_OBJECT", 2],
      ["null", `null\n`, "EVIDENCE_NOT_AN_OBJECT", 1],
      ["an event without type", `{"subtype":"init"}\n`, "EVIDENCE_EVENT_WITHOUT_TYPE", 1],
      ["a numeric type", `{"type":3}\n`, "EVIDENCE_EVENT_WITHOUT_TYPE", 1],
      ["a UTF-8 BOM", `\uFEFF${JSON.stringify(init())}\n`, "EVIDENCE_MALFORMED_LINE", 1],
      ["Infinity", `${JSON.stringify(init())}\n{"type":"result","x":-Infinity}\n`, "EVIDENCE_NON_FINITE_NUMBER", 2],
      ["an overflowing number", `{"type":"result","total_cost_usd":1e999}\n`, "EVIDENCE_NON_FINITE_NUMBER", 1],
      ["a truncated last line", `${JSON.stringify(init())}\n{"type":"assis`, "EVIDENCE_TRUNCATED_LINE", 2],
    ])("refuses %s", (_label, text, code, line) => {
      const parsed = parseEvidenceBytes(encode(text));
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatchObject({ code, line });
    });

    it("refuses (never throws on) an event nested deeper than the bound, e.g. a model-written tool input", () => {
      const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
      const text = `${JSON.stringify(init())}\n{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"x":${deep}}}]}}\n${JSON.stringify(result())}\n`;
      const parsed = parseEvidenceBytes(encode(text));
      expect(!parsed.ok && parsed.error).toMatchObject({ code: "EVIDENCE_NESTING_TOO_DEEP", line: 2 });
      const atBound = `${"[".repeat(MAX_EVENT_DEPTH - 5)}${"]".repeat(MAX_EVENT_DEPTH - 5)}`;
      const ok = `${JSON.stringify(init())}\n{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"x":${atBound}}}]}}\n${JSON.stringify(result())}\n`;
      expect(parseEvidenceBytes(encode(ok)).ok).toBe(true);
    });

    it("never echoes line content in the refusal message", () => {
      const parsed = parseEvidenceBytes(encode('{"type":"user","secret":"sk-live-abcdef",}\n'));
      expect(!parsed.ok && parsed.error.code).toBe("EVIDENCE_MALFORMED_LINE");
      if (!parsed.ok) expect(parsed.error.message).not.toContain("sk-live");
    });

    it("does not echo an arbitrary event type after the result (it could be a secret)", () => {
      const parsed = parseEvidenceBytes(encode(jsonl([init(), result(), { type: "hunter2-very-secret value" }])));
      expect(!parsed.ok && parsed.error.code).toBe("EVIDENCE_EVENT_AFTER_RESULT");
      if (!parsed.ok) expect(parsed.error.message).not.toContain("hunter2");
      const plain = parseEvidenceBytes(encode(jsonl([init(), result(), { type: "assistant" }])));
      expect(!plain.ok && plain.error.message).toContain('"assistant"');
    });

    it("treats only Python-whitespace lines as blank (a lone U+FEFF line is refused)", () => {
      const parsed = parseEvidenceBytes(encode(`${JSON.stringify(init())}\n\uFEFF\n${JSON.stringify(result())}\n`));
      expect(!parsed.ok && parsed.error).toMatchObject({ code: "EVIDENCE_MALFORMED_LINE", line: 2 });
      expect(parseEvidenceBytes(encode(`${JSON.stringify(init())}\n \t\u00a0\n${JSON.stringify(result())}\n`)).ok).toBe(true);
    });

    it("refuses an empty or blank capture", () => {
      for (const text of ["", "\n\n  \n"]) {
        const parsed = parseEvidenceBytes(encode(text));
        expect(!parsed.ok && parsed.error.code).toBe("EVIDENCE_EMPTY_STREAM");
      }
    });

    it("refuses a stream cut inside a multi-byte character as truncated, and a bad byte mid-stream as invalid UTF-8", () => {
      const bytes = encode(`${JSON.stringify(init())}\n{"type":"assistant","t":"👋`);
      const cut = parseEvidenceBytes(bytes.slice(0, bytes.length - 2));
      expect(!cut.ok && cut.error.code).toBe("EVIDENCE_TRUNCATED_LINE");
      const bad = parseEvidenceBytes(new Uint8Array([...encode('{"type":"system"'), 0xff, ...encode("}\n")]));
      expect(!bad.ok && bad.error).toMatchObject({ code: "EVIDENCE_INVALID_UTF8", line: 1 });
    });

    it("hands back the partial events of a killed session when only the result is missing", () => {
      const parsed = parseEvidenceBytes(encode(jsonl([init(), assistant([{ type: "text", text: "x" }])])));
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.error.code).toBe("EVIDENCE_RESULT_MISSING");
      expect(parsed.partialEvents?.length).toBe(2);
      const malformed = parseEvidenceBytes(encode("{\n"));
      expect(!malformed.ok && malformed.partialEvents).toBeNull();
    });

    it("refuses over the byte bound, before any other defect, and whatever the chunking", async () => {
      const bytes = encode(`not json\n${good}`);
      const whole = parseEvidenceBytes(bytes, { maxBytes: bytes.length - 1 });
      expect(!whole.ok && whole.error).toMatchObject({ code: "EVIDENCE_OVERSIZE", line: null });
      expect(await parseEvidenceStream(fromChunks(splitAt(bytes, [3, 20])), { maxBytes: bytes.length - 1 })).toEqual(whole);
      expect(parseEvidenceBytes(bytes, { maxBytes: bytes.length }).ok).toBe(false);
      expect(parseEvidenceBytes(encode(good), { maxBytes: encode(good).length }).ok).toBe(true);
    });

    it("refuses the default 8 MiB bound plus one byte and keeps draining the source", async () => {
      const chunk = new Uint8Array(1024 * 1024).fill(0x20);
      let pulled = 0;
      async function* source(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < 9; i += 1) {
          pulled += 1;
          yield chunk;
        }
      }
      const parsed = await parseEvidenceStream(source());
      expect(!parsed.ok && parsed.error.code).toBe("EVIDENCE_OVERSIZE");
      expect(pulled).toBe(9);
    });

    it("refuses a capture its producer already truncated", () => {
      const parsed = parseEvidenceBytes(encode(good), { captureTruncated: true });
      expect(!parsed.ok && parsed.error.code).toBe("EVIDENCE_OVERSIZE");
    });
  });

  describe("environment and caller failures", () => {
    it("throws EVIDENCE_INVALID_OPTIONS for a bad bound", () => {
      expect(() => parseEvidenceBytes(encode(good), { maxBytes: 0 })).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
    });

    it("wraps a failing source as EVIDENCE_SOURCE_FAILED with its cause", async () => {
      const boom = new Error("EPIPE");
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield encode(JSON.stringify(init()));
        throw boom;
      }
      const error: unknown = await parseEvidenceStream(failing()).catch((caught: unknown) => caught);
      expect(isEvidenceError(error) && error.code).toBe("EVIDENCE_SOURCE_FAILED");
      expect((error as Error).cause).toBe(boom);
    });

    it("refuses string chunks (a source with an encoding set)", async () => {
      const source = (async function* () {
        yield "text" as unknown as Uint8Array;
      })();
      await expect(parseEvidenceStream(source)).rejects.toMatchObject({ code: "EVIDENCE_INVALID_OPTIONS" });
    });

    it("surfaces a throwing onEvent callback as EVIDENCE_ON_EVENT_FAILED", () => {
      expect(() =>
        parseEvidenceBytes(encode(good), {
          onEvent: () => {
            throw new Error("display broke");
          },
        }),
      ).toThrow(expect.objectContaining({ code: "EVIDENCE_ON_EVENT_FAILED" }));
    });

    it("refuses use after finish", () => {
      const parser = createEvidenceStreamParser();
      parser.push(encode(good));
      parser.finish();
      expect(() => parser.push(encode(good))).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
      expect(() => parser.finish()).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
    });
  });

  describe("chunking independence (property)", () => {
    const samples = [
      encode(good),
      encode(`${good}{"type":"assistant"}\n`),
      encode(jsonl([init(), result(), result()])),
      new Uint8Array([...encode('{"type":"system","x":"é'), 0xe2, 0x82, ...encode('"}\n')]),
      encode(`${JSON.stringify(init())}\n{"type":"assistant","t":"日本語`),
    ];

    it("gives the buffer's answer for any split, including inside multi-byte characters", async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...samples), fc.array(fc.nat({ max: 400 }), { maxLength: 12 }), async (bytes, cuts) => {
          const whole = parseEvidenceBytes(bytes);
          const streamed = await parseEvidenceStream(fromChunks(splitAt(bytes, cuts)));
          expect(streamed).toEqual(whole);
        }),
        { numRuns: 300 },
      );
    });

    it("gives the buffer's answer on arbitrary bytes too", async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat({ max: 200 }), { maxLength: 8 }), async (bytes, cuts) => {
          expect(await parseEvidenceStream(fromChunks(splitAt(bytes, cuts)))).toEqual(parseEvidenceBytes(bytes));
        }),
        { numRuns: 300 },
      );
    });
  });
});
