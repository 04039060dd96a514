// A model turn whose tool input nests far past the evidence parser's bound (256 levels), through the real runner: real
// CLI, real bwrap, real gateway. Before 7464694 such a line overflowed the stack in the recursive value scans and the
// cell escaped as a harness bug; now the event is a malformed line (EVIDENCE_NESTING_TOO_DEEP), the session the
// session's own unverifiable evidence (evidence-unverified: excluded when verify and the oracle pass, the counted
// failure when they do not, so an agent cannot launder a failing cell into an exclusion by nesting one tool input),
// and the transcript a redacted salvage that keeps the line as text. A 200-level control with the same
// turns must stay an ok, resolved cell, so the test fails in both directions (measured: with 7464694 reverted the sweep
// exits 1 with SWEEP_CELL_FAILED, a RangeError, and no deep-input row; with the bound at 128 the control is a
// session-error too). Judged from host evidence only: the runner's exit code and stderr, results.jsonl, the files
// under --out, and /proc. Why 3,000 levels and not 10,000: see the fixture's script.yaml.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadScript } from "@wfbench/scripted-model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleDescendants, type DescendantSampler, type ProcessObservation } from "./support/process-sampler.js";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/deep-tool-input", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

// stream-json-evidence's MAX_EVENT_DEPTH (the runner does not depend on that package, so the number is restated).
const MAX_EVENT_DEPTH = 256;
// Levels around a tool input's payload in a stream-json assistant event: event, message, content, block, input.
const ENVELOPE = 5;
const DEEP_LEVELS = 3000;
const SHALLOW_LEVELS = 200;
// Every tool input of the fixture carries this credential-shaped string; no output file may hold it.
const PLANTED = "sk-ant-deepinput-4b9d0e7c1a";
// The salvage's per-line bound on the kept text of a line that is not an event (stream-json-evidence, 16,384 chars).
const SALVAGE_LINE_CHARS = 16_384;

interface Row {
  task: string;
  [field: string]: unknown;
}

interface Artifact {
  path: string;
  sha256: string;
  bytes: number;
  source: string;
}

const base = mkdtempSync(join(tmpdir(), "wfbench-deep-input-"));
const out = join(base, "out");
const scratch = join(base, "tmp");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Row[] = [];
let observed: ProcessObservation[] = [];

beforeAll(async () => {
  if (tools.skip) return;
  mkdirSync(scratch);
  let sampler: DescendantSampler | null = null;
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--workers", "2", "--out", out];
  result = await runRunner(args, {
    env: { TMPDIR: scratch },
    onSpawn: (child) => {
      if (child.pid !== undefined) sampler = sampleDescendants(child.pid);
    },
  });
  observed = (sampler as DescendantSampler | null)?.stop().observations ?? [];
  rows = existsSync(join(out, "results.jsonl")) ? readResultRows<Row>(out) : [];
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** How many objects/arrays nest from `value` down its first child at each level (iterative: no stack to overflow). */
function nestingDepth(value: unknown): number {
  let depth = 0;
  let at = value;
  while (typeof at === "object" && at !== null) {
    depth += 1;
    at = Array.isArray(at) ? (at[0] as unknown) : Object.values(at)[0];
  }
  return depth;
}

function rowOf(task: string): Row {
  const row = rows.find((r) => r.task === task);
  if (row === undefined) throw new Error(`no row for ${task} in ${join(out, "results.jsonl")}`);
  return row;
}

function artifactOf(task: string): Artifact {
  const artifacts = rowOf(task)["transcript_artifacts"] as Artifact[];
  expect(artifacts).toHaveLength(1);
  return artifacts[0] as Artifact;
}

function recordsOf(artifact: Artifact): Record<string, unknown>[] {
  return readFileSync(join(out, artifact.path), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

function jsonLines(file: string): Record<string, unknown>[] {
  return readFileSync(join(out, file), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The observed descendants still running under the same pid with the same argv (a zombie no longer runs). */
function stillRunning(seen: readonly ProcessObservation[]): string[] {
  return seen.flatMap((o) => {
    try {
      const stat = readFileSync(`/proc/${o.pid}/stat`, "utf8");
      if (/^[ZX]$/u.test(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? "")) return [];
      const argv = readFileSync(`/proc/${o.pid}/cmdline`, "utf8").split("\0").filter((part) => part !== "");
      return argv.join("\0") === o.argv.join("\0") ? [`${o.pid} ${o.comm}: ${o.argv.slice(0, 4).join(" ")}`] : [];
    } catch {
      return [];
    }
  });
}

/** Processes anywhere on the host whose argv names `marker` (the test's own TMPDIR). */
function namingMarker(marker: string): string[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/u.test(name) && Number(name) !== process.pid)
    .flatMap((name) => {
      try {
        const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/gu, " ");
        return cmdline.includes(marker) ? [`${name} ${cmdline.slice(0, 200)}`] : [];
      } catch {
        return [];
      }
    });
}

describe("the deep-tool-input fixture", () => {
  it("nests the deep payload past the bound and the control well inside it, as loaded by the scripted model", async () => {
    const loaded = await loadScript(join(FIXTURE, "script.yaml"));
    if (!loaded.ok) throw new Error(loaded.error.message);
    const payloadDepth = (name: string): number => {
      const block = loaded.value.trajectories.find((t) => t.name === name)?.turns[0]?.content[0];
      if (block?.type !== "tool_use") throw new Error(`${name}: the first turn is not a tool_use`);
      expect(block.input["description"]).toContain(PLANTED);
      return nestingDepth(block.input["payload"]);
    };
    expect(payloadDepth("deep-input")).toBe(DEEP_LEVELS);
    expect(payloadDepth("shallow-input")).toBe(SHALLOW_LEVELS);
    expect(DEEP_LEVELS + ENVELOPE).toBeGreaterThan(MAX_EVENT_DEPTH);
    expect(SHALLOW_LEVELS + ENVELOPE).toBeLessThanOrEqual(MAX_EVENT_DEPTH);
  });
});

describe.skipIf(tools.skip)("a tool input nested 3,000 levels deep, through the real runner", () => {
  it("finishes the sweep: exit 0, no harness failure, one row per cell, report.md written", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(result.stderr).not.toMatch(/SWEEP_CELL_FAILED|the harness failed|RangeError|Maximum call stack/u);
    expect(result.stdout).toContain("3 row(s), sweep complete.");
    expect(rows.map((row) => `${row.task}/${String(row["arm"])}/${String(row["run"])}`).sort()).toEqual(["deep-failing/baseline/0", "deep-input/baseline/0", "shallow-input/baseline/0"]);
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toMatch(/^\| deep-input \| probe \| baseline \| 0\/0 \(1 excluded\) \|.*\| evidence-unverified×1 \|$/mu);
    expect(report).toMatch(/^\| deep-failing \| probe \| baseline \| 0\/1 \|.*\| verify-failed×1 \|$/mu);
    expect(report).toMatch(/^\| shallow-input \| probe \| baseline \| 1\/1 \|/mu);
  });

  it("records the deep cell as evidence-unverified whose only cause is EVIDENCE_NESTING_TOO_DEEP, with nothing measured", () => {
    const row = rowOf("deep-input");
    expect(row).toMatchObject({ error_kind: "evidence-unverified", ok: false, resolved: false, sandbox_backend: "bwrap", transcript_missing: true });
    // The refused stream measured nothing: no skill proof, tool counts, turns, tokens or CLI cost.
    expect(row).toMatchObject({ skill_invoked: null, tool_use_counts: null, num_turns: null, input_tokens: null, output_tokens: null, cost_usd: null });
    // The CLI itself ended well (exit 0, one result event): the event stream alone makes the evidence unverifiable,
    // not a session error (which would also count towards the outage breaker).
    expect(row["error_detail"]).toMatch(/^EVIDENCE_NESTING_TOO_DEEP: malformed event at line \d+: nested deeper than 256 levels(?:;|$)/u);
    expect(row["evidence_diagnostics"]).toContainEqual(expect.stringMatching(/^EVIDENCE_NESTING_TOO_DEEP: malformed event at line \d+/u));
    expect(row["evidence_diagnostics"]).toContainEqual(expect.stringMatching(/^transcript salvaged from a stream that did not parse \(EVIDENCE_NESTING_TOO_DEEP\): \d+ line\(s\) kept, 1 unparsed$/u));
    // The CLI made every request: the wire note says its refused stream cannot account for them, not that spend left it.
    expect(row["evidence_diagnostics"]).toContainEqual(expect.stringMatching(/^unaccounted spend: \d+ gateway request\(s\) .* \(session 1's stream did not parse whole, so requests its CLI made may be among them\)$/u));
    // The session went on after the deep turn: all three scripted turns crossed the gateway.
    expect(row["wire_requests"]).toBe(3);
    // The session's id is salvaged from the refused stream's init line: it names the transcript, never null.
    expect(row["session_ids"]).toEqual([/-([0-9a-f-]{36})\.jsonl$/u.exec(artifactOf("deep-input").path)?.[1]]);
  });

  it("counts the same deep trajectory under a failing verify as that failure, never an exclusion", () => {
    const row = rowOf("deep-failing");
    expect(row).toMatchObject({ error_kind: "verify-failed", ok: false, resolved: false, num_turns: null, tool_use_counts: null });
    expect(row["error_detail"]).toMatch(/^EVIDENCE_NESTING_TOO_DEEP: /u);
    expect(row["evidence_diagnostics"]).toContainEqual("the session's evidence is unverifiable (its own output nested past the evidence parser's depth), but verify failed on the workspace it left: counted as that failure, not excluded");
  });

  it("keeps the 200-level control an ok, resolved cell with its tool calls counted", () => {
    expect(rowOf("shallow-input")).toMatchObject({ error_kind: null, error_detail: null, ok: true, resolved: true, num_turns: 3, tool_use_counts: { Bash: 1, Write: 1 }, evidence_diagnostics: [], transcript_missing: false });
  });

  it("saves the deep cell's transcript as redacted text: the refused line as a nesting-too-deep record, the rest as events", () => {
    const artifact = artifactOf("deep-input");
    const bytes = readFileSync(join(out, artifact.path));
    expect(artifact.source).toBe("parent-captured-stream-json");
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(artifact.sha256);
    expect(bytes.length).toBe(artifact.bytes);
    expect(statSync(join(out, artifact.path)).mode & 0o777).toBe(0o600);
    const records = recordsOf(artifact);
    const unparsed = records.filter((record) => record["type"] === "wfbench_unparsed_line");
    expect(unparsed).toHaveLength(1);
    const line = Number(/at line (\d+):/u.exec(String(rowOf("deep-input")["error_detail"]))?.[1]);
    expect(unparsed[0]).toMatchObject({ line, reason: "nesting-too-deep", text_truncated: true });
    const text = String(unparsed[0]?.["text"]);
    expect(text).toHaveLength(SALVAGE_LINE_CHARS);
    // What the CLI printed is the input exactly as the model wrote it (same keys, order and nesting), the key redacted.
    expect(text).toMatch(/^\{"type":"assistant","message":\{/u);
    expect(text).toContain(`"name":"Bash","input":{"command":"echo deep","description":"deep input, key [REDACTED]","payload":${'{"a":'.repeat(200)}`);
    // Every other line parsed and was kept as an event: one init, the CLI's refusal of the call, the Write, one result.
    expect(records.filter((record) => record["type"] === "system" && record["subtype"] === "init")).toHaveLength(1);
    expect(JSON.stringify(records)).toContain("An unexpected parameter `payload` was provided");
    expect(records.filter((record) => record["type"] === "result")).toEqual([expect.objectContaining({ subtype: "success", is_error: false })]);
    expect(records.filter((record) => record["type"] === "assistant")).toHaveLength(2);
  });

  it("saves the control's transcript with its 200-level input as a parsed, redacted event", () => {
    const events = recordsOf(artifactOf("shallow-input"));
    const calls = events
      .filter((event) => event["type"] === "assistant")
      .flatMap((event) => ((event["message"] as { content?: unknown[] }).content ?? []) as { type?: string; name?: string; input?: Record<string, unknown> }[])
      .filter((block) => block.type === "tool_use" && block.name === "Bash");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.input?.["description"]).toBe("shallow input, key [REDACTED]");
    expect(nestingDepth(calls[0]?.input?.["payload"])).toBe(SHALLOW_LEVELS);
  });

  it("writes the planted credential and no cell token to any output file", () => {
    const files = filesUnder(out);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(readFileSync(file).includes(PLANTED), file).toBe(false);
    for (const name of readdirSync(join(out, "transcripts"))) expect(readFileSync(join(out, "transcripts", name), "utf8")).not.toMatch(/sk-wfb-[0-9a-f]{48}/u);
    expect(`${result.stdout}${result.stderr}`).not.toContain(PLANTED);
  });

  it("carried the whole deep input back to the model in the next request, through the gateway", () => {
    // The scripted model logs each request's size: the deep cell's second request holds its 2,800 extra levels
    // ({"a": and } are 6 bytes a level) while its first, before any tool call, is the control's size.
    const requests = jsonLines("scripted-model-requests.jsonl");
    const bodyBytes = (trajectory: string, turn: number): number => Number(requests.find((r) => r["trajectory"] === trajectory && r["turn"] === turn)?.["body_bytes"]);
    expect(Math.abs(bodyBytes("deep-input", 0) - bodyBytes("shallow-input", 0))).toBeLessThan(100);
    expect(bodyBytes("deep-input", 1) - bodyBytes("shallow-input", 1)).toBeGreaterThan((DEEP_LEVELS - SHALLOW_LEVELS) * 6 - 100);
    const wire = jsonLines("gateway-usage.jsonl").filter((r) => r["cell_id"] === "deep-input/baseline/run0");
    expect(wire.map((r) => [r["outcome"], r["http_status"], r["sse_conformant"]])).toEqual([
      ["ok", 200, true],
      ["ok", 200, true],
      ["ok", 200, true],
    ]);
  });

  it("leaves no process and no scratch directory behind", async () => {
    // The real sandbox and CLI ran: /proc showed bwrap and claude under the runner.
    expect(observed.some((o) => o.comm === "bwrap")).toBe(true);
    expect(observed.some((o) => o.comm === "claude" && !o.argv.includes("--version"))).toBe(true);
    let left = [...stillRunning(observed), ...namingMarker(scratch)];
    for (const until = Date.now() + 3000; left.length > 0 && Date.now() < until; left = [...stillRunning(observed), ...namingMarker(scratch)]) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(left).toEqual([]);
    expect(readdirSync(scratch).filter((name) => name.startsWith("wfbench-run-"))).toEqual([]);
  });
});
