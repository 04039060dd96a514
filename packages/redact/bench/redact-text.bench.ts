// Redaction time on 16 MiB strings: prose-like lines, one long line, a 76-column base64 blob, pathological breaks.
// Run: `npx nx run redact:bench` or `node --expose-gc --conditions=@wfbench/source --import tsx bench/redact-text.bench.ts`.
// Each line ends with the sha256 of the output, so two runs (before/after a change) can be compared for identity.
import { createHash } from "node:crypto";
import { createTextRedactor, redactKnownSecrets } from "../src/redact-text.js";

const MiB = 1024 * 1024;
const SIZE = 16 * MiB;
const SECRETS = ["upstream-key-0123456789abcdef", "wfbench-minted-token-5f1d"];

// Deterministic pseudo-random bytes (xorshift32), so every run measures the same inputs.
function randomBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i += 1) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

function fill(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const WORDS = ["the", "tool", "result", "reads", "src/index.ts", "and", "prints", "42", "lines;", "ok", "Error:", "value", "x-api-key", "data"];
function proseLines(size: number): string {
  const lines: string[] = [];
  let total = 0;
  let n = 0;
  while (total < size) {
    const words: string[] = [];
    for (let w = 0; w < 12; w += 1) words.push(WORDS[(n * 7 + w * 3) % WORDS.length] ?? "");
    if (n % 5000 === 0) words.push(SECRETS[0] ?? "");
    const line = words.join(" ");
    lines.push(line);
    total += line.length + 1;
    n += 1;
  }
  return lines.join("\n").slice(0, size);
}

function wrap(text: string, width: number, eol: string): string {
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += width) lines.push(text.slice(i, i + width));
  return lines.join(eol);
}

const blob = randomBytes((SIZE / 4) * 3, 7);
// A planted secret every ~1 MiB of the blob, at varying byte alignments.
for (let at = 1000, k = 0; at + 64 < blob.length; at += MiB + 1, k += 1) Buffer.from(SECRETS[k % 2] ?? "").copy(blob, at);

const inputs: [string, string][] = [
  ["prose lines (~80 cols, \\n)", proseLines(SIZE)],
  ["one line, no breaks", fill("word word, value=42; ", SIZE)],
  ["base64 blob wrapped at 76, \\n", wrap(blob.toString("base64"), 76, "\n").slice(0, SIZE)],
  ["base64 blob wrapped at 64, \\r\\n", wrap(blob.toString("base64"), 64, "\r\n").slice(0, SIZE)],
  ["pathological: 'A\\n' repeated", fill("A\n", SIZE)],
  ["pathological: 'ab \\\\n ' repeated", fill("ab \\n ", SIZE)],
];

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const maxRssMiB = (): number => process.resourceUsage().maxRSS / 1024;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function measure(label: string, input: string, run: (text: string) => string, rounds = 5): void {
  const output = run(input); // warm-up, and the output whose digest is printed
  const times: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    gc();
    const start = process.hrtime.bigint();
    run(input);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const digest = createHash("sha256").update(output).digest("hex").slice(0, 16);
  process.stdout.write(
    `${label.padEnd(52)} ${median(times).toFixed(1).padStart(8)} ms (median of ${rounds})  out ${output.length} chars sha256 ${digest}  peak RSS ${maxRssMiB().toFixed(0)} MiB\n`,
  );
}

process.stdout.write(`node ${process.version}; inputs of ${SIZE} chars each; secrets: ${SECRETS.length}\n`);
const redact = createTextRedactor(SECRETS);
for (const [label, input] of inputs) {
  measure(`redactText: ${label}`, input, redact);
  measure(`redactKnownSecrets: ${label}`, input, (text) => redactKnownSecrets(text, SECRETS));
}
