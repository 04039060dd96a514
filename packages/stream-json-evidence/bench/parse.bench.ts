// Parse throughput and memory on transcripts concatenated from the lines of the recorded (real CLI) fixtures.
// Run: `npx nx run stream-json-evidence:bench` or `node --expose-gc --import tsx bench/parse.bench.ts`.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEvidenceBytes, parseEvidenceStream } from "../src/parse-evidence-stream.js";
import { redactTranscript } from "../src/redact-transcript.js";

const MiB = 1024 * 1024;
const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures");

function fixtureLines(): { body: string[]; result: string } {
  const body: string[] = [];
  let result = "";
  for (const name of readdirSync(fixtures).sort()) {
    const file = join(fixtures, name, "stdout.jsonl");
    // Real lines only: the fixtures recorded from the pinned CLI.
    if (!name.startsWith("recorded-") || !statSync(join(fixtures, name)).isDirectory()) continue;
    const expected = JSON.parse(readFileSync(join(fixtures, name, "expected.json"), "utf8")) as { parse: string };
    if (expected.parse !== "ok") continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line === "") continue;
      const type = (JSON.parse(line) as { type: string }).type;
      if (type === "result") result = line;
      else body.push(line);
    }
  }
  return { body, result };
}

function buildTranscript(targetBytes: number): Uint8Array {
  const { body, result } = fixtureLines();
  const parts: string[] = [];
  let size = Buffer.byteLength(result) + 1;
  for (let i = 0; ; i += 1) {
    const line = body[i % body.length] ?? "";
    const bytes = Buffer.byteLength(line) + 1;
    if (size + bytes > targetBytes) break;
    parts.push(line);
    size += bytes;
  }
  parts.push(result);
  return new TextEncoder().encode(`${parts.join("\n")}\n`);
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heapMiB = (): number => process.memoryUsage().heapUsed / MiB;
const maxRssMiB = (): number => process.resourceUsage().maxRSS / 1024;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(label: string, bytes: Uint8Array, run: () => Promise<unknown> | unknown, rounds = 7): Promise<void> {
  await run(); // warm-up
  const speeds: number[] = [];
  let heapGrowth = 0;
  for (let i = 0; i < rounds; i += 1) {
    gc();
    const before = heapMiB();
    const start = process.hrtime.bigint();
    const kept = await run();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    heapGrowth = Math.max(heapGrowth, heapMiB() - before);
    speeds.push(bytes.length / MiB / seconds);
    if (kept === undefined) throw new Error("benchmark produced nothing");
  }
  const line = `${label.padEnd(48)} ${median(speeds).toFixed(1).padStart(7)} MB/s (MiB/s, median of ${rounds})  heap growth ≈ ${heapGrowth.toFixed(1)} MiB  peak RSS so far ${maxRssMiB().toFixed(0)} MiB`;
  process.stdout.write(`${line}\n`);
}

const eight = buildTranscript(8 * MiB);
const fifty = buildTranscript(50 * 1000 * 1000);
const check = parseEvidenceBytes(eight);
if (!check.ok) throw new Error(`generated transcript refused: ${check.error.code}`);
process.stdout.write(`node ${process.version}; 8 MiB transcript: ${eight.length} bytes, ${check.value.events.length} events; 50 MB: ${fifty.length} bytes\n`);
process.stdout.write(`baseline heap ${heapMiB().toFixed(1)} MiB, peak RSS ${maxRssMiB().toFixed(0)} MiB\n`);

const eightLines = new TextDecoder().decode(eight).split("\n").filter((line) => line !== "");
await measure("floor: JSON.parse of the same 8 MiB, pre-split", eight, () => eightLines.map((line) => JSON.parse(line) as unknown));
await measure("8 MiB buffer (parseEvidenceBytes)", eight, () => parseEvidenceBytes(eight));
await measure("8 MiB stream, 64 KiB chunks", eight, () => parseEvidenceStream(chunks(eight, 64 * 1024)));
await measure("8 MiB stream, 4 KiB chunks", eight, () => parseEvidenceStream(chunks(eight, 4096)));
await measure("50 MB stream, bound raised to 64 MiB", fifty, () => parseEvidenceStream(chunks(fifty, 64 * 1024), { maxBytes: 64 * MiB }), 3);
await measure("50 MB stream, default 8 MiB bound (refused, drained)", fifty, () => parseEvidenceStream(chunks(fifty, 64 * 1024)), 3);
await measure("8 MiB redactTranscript (canonical + sha256)", eight, () => redactTranscript(check.value, { secrets: ["wfbench-minted-token-5f1d"] }), 3);
