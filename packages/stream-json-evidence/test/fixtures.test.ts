import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@wfbench/digest";
import { classifyOutcome } from "../src/classify-outcome.js";
import { parseEvidenceBytes, parseEvidenceStream } from "../src/parse-evidence-stream.js";
import { proveSkillUse } from "../src/prove-skill-use.js";
import { redactTranscript } from "../src/redact-transcript.js";
import type { ProcessOutcome } from "../src/schema.js";
import { summarizeUsage } from "../src/summarize-usage.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

interface Expected {
  process: ProcessOutcome;
  parse: string;
  line?: number | null;
  trailingEvents?: number;
  outcome: Record<string, unknown>;
  skill?: { expected: string; status: string; code?: string; line?: number; discovered: boolean; commandNameConfirmed: boolean; skillBodyInjected: boolean };
  toolUseCounts?: Record<string, number>;
  usage?: Record<string, number>;
  subagents?: unknown[];
  subagentParent?: string;
  costUsd?: number | null;
  numTurns?: number;
  secrets?: string[];
  leaked?: string[];
}

const scenarios = readdirSync(fixtures)
  .filter((name) => statSync(join(fixtures, name)).isDirectory())
  .sort()
  .map((name) => ({
    name,
    bytes: new Uint8Array(readFileSync(join(fixtures, name, "stdout.jsonl"))),
    expected: JSON.parse(readFileSync(join(fixtures, name, "expected.json"), "utf8")) as Expected,
    meta: JSON.parse(readFileSync(join(fixtures, name, "meta.json"), "utf8")) as { cliVersion: string },
  }));

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.slice(offset, offset + size);
}

describe("fixtures", () => {
  it("covers every scenario the issue names", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(35);
    for (const scenario of scenarios) expect(scenario.meta.cliVersion).toBe("2.1.332");
    expect(scenarios.filter((scenario) => scenario.name.startsWith("recorded-")).length).toBeGreaterThanOrEqual(11);
  });

  describe.each(scenarios)("$name", ({ bytes, expected }) => {
    const parsed = parseEvidenceBytes(bytes);

    it("parses (or refuses) with the expected code and line", async () => {
      if (expected.parse === "ok") {
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(parsed.value.trailingEvents.length).toBe(expected.trailingEvents ?? 0);
      } else {
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) {
          expect(parsed.error.code).toBe(expected.parse);
          // Recorded refusals may land on a timing-dependent line; synthesised ones pin it.
          if ("line" in expected) expect(parsed.error.line).toBe(expected.line ?? null);
        }
      }
      // Byte-at-a-time and odd chunk sizes give the same answer as the buffer.
      for (const size of [1, 7, 4096]) expect(await parseEvidenceStream(chunked(bytes, size))).toEqual(parsed);
    });

    it("classifies the session outcome", () => {
      const outcome = classifyOutcome(parsed, expected.process);
      expect(outcome).toMatchObject(expected.outcome);
    });

  });

  describe.each(scenarios.filter((scenario) => scenario.expected.parse === "ok"))("$name (accepted)", ({ bytes, expected }) => {
    const parsed = parseEvidenceBytes(bytes);

    it("proves the skill, counts tools and reads usage", () => {
      if (!parsed.ok || expected.skill === undefined) throw new Error("fixture expectation is incomplete");
      const proof = proveSkillUse(parsed.value, expected.skill.expected);
      expect(proof.status).toBe(expected.skill.status);
      expect(proof.skillInvoked).toBe(expected.skill.status === "unverifiable" ? null : expected.skill.status === "proven");
      expect(proof.discovered).toBe(expected.skill.discovered);
      expect(proof.commandNameConfirmed).toBe(expected.skill.commandNameConfirmed);
      expect(proof.skillBodyInjected).toBe(expected.skill.skillBodyInjected);
      if (expected.skill.code !== undefined) {
        expect(proof.diagnostics[0]).toMatchObject({ code: expected.skill.code, line: expected.skill.line });
      } else {
        expect(proof.diagnostics).toEqual([]);
      }
      expect(proof.toolUseCounts).toEqual(expected.toolUseCounts);

      const usage = summarizeUsage(parsed.value);
      if (expected.costUsd === null) expect(usage.costUsd).toBeNull();
      else if (expected.costUsd !== undefined) expect(usage.costUsd).toBeCloseTo(expected.costUsd, 9);
      if (expected.numTurns !== undefined) expect(usage.numTurns).toBe(expected.numTurns);
      if (expected.usage !== undefined) expect(usage.usage).toEqual(expected.usage);
      if (expected.subagents !== undefined) expect(usage.subagents).toEqual(expected.subagents);
      if (expected.subagentParent !== undefined) expect(usage.subagents.map((traffic) => traffic.parentToolUseId)).toEqual([expected.subagentParent]);
    });

    it("writes a redacted canonical transcript whose sha256 matches its bytes", () => {
      if (!parsed.ok) throw new Error("unreachable");
      const artifact = redactTranscript(parsed.value, { secrets: expected.secrets ?? [] });
      expect(artifact.ok).toBe(true);
      if (!artifact.ok) return;
      expect(artifact.value.sha256).toBe(sha256Hex(artifact.value.bytes));
      const text = new TextDecoder().decode(artifact.value.bytes);
      expect(text.split("\n").filter((line) => line !== "").length).toBe(parsed.value.events.length + parsed.value.trailingEvents.length);
      for (const leaked of expected.leaked ?? []) expect(text).not.toContain(leaked);
    });
  });
});
