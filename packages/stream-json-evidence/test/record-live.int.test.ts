import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { classifyOutcome } from "../src/classify-outcome.js";
import { parseEvidenceBytes, parseEvidenceStream } from "../src/parse-evidence-stream.js";
import { proveSkillUse } from "../src/prove-skill-use.js";
import { redactTranscript } from "../src/redact-transcript.js";
import { summarizeUsage } from "../src/summarize-usage.js";
import { FAKE_API_KEY, SKILL_NAME, findClaudeBinary, hasBwrap, recordLiveSession } from "./support/record-live.js";

const claude = await findClaudeBinary();
const available = claude !== null && hasBwrap();
// Under CI a missing CLI or bwrap is a failure, never a silent skip.
const required = process.env["CI"] === "true";
const fixture = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "recorded-skill-bash", "stdout.jsonl");

function shape(bytes: Uint8Array): string[] {
  const parsed = parseEvidenceBytes(bytes);
  if (!parsed.ok) throw new Error(`${parsed.error.code}: ${parsed.error.message}`);
  return parsed.value.events.map((event) => {
    const message = event["message"] as { content?: { type?: string; name?: string }[] } | undefined;
    const block = Array.isArray(message?.content) ? message.content[0] : undefined;
    return [event.type, typeof event["subtype"] === "string" ? event["subtype"] : "", block?.type ?? "", block?.name ?? ""].join("/");
  });
}

describe("live re-recording against the pinned CLI", () => {
  it.skipIf(!available && !required)("still produces a stream the parser accepts, with the committed fixture's shape", async () => {
    if (claude === null) throw new Error("the pinned Claude Code CLI is not installed (run npm ci)");
    if (!hasBwrap()) throw new Error("/usr/bin/bwrap is missing");
    const live = await recordLiveSession(claude);
    expect(live.exitCode, live.stderr).toBe(0);
    expect(live.requests).toBe(3);

    const parsed = await parseEvidenceStream(live.stdout);
    if (!parsed.ok) throw new Error(`the CLI format changed: ${parsed.error.code}: ${parsed.error.message}`);
    expect(parsed.value.events[0]?.["claude_code_version"]).toBe("2.1.332");
    expect(shape(live.stdout)).toEqual(shape(new Uint8Array(readFileSync(fixture))));

    expect(classifyOutcome(parsed, { exitCode: live.exitCode, state: "exited" })).toMatchObject({ ok: true, errorKind: null });
    expect(proveSkillUse(parsed.value, SKILL_NAME)).toMatchObject({ skillInvoked: true, discovered: true, commandNameConfirmed: true, skillBodyInjected: true });
    const usage = summarizeUsage(parsed.value);
    // The script answers 3 requests with 120 input / 17 output tokens each; sonnet list price is $3 / $15 per Mtok.
    expect(usage.usage).toEqual({ inputTokens: 360, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, outputTokens: 51 });
    expect(usage.costUsd).toBeCloseTo(0.001845, 9);
    expect(usage.costBases).toEqual(["list"]);

    const artifact = redactTranscript(parsed.value, { secrets: [FAKE_API_KEY] });
    expect(artifact.ok).toBe(true);
    if (artifact.ok) expect(new TextDecoder().decode(artifact.value.bytes)).not.toContain(FAKE_API_KEY);
  });
});
