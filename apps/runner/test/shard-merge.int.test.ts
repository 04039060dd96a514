// Shards and merge through the real runner (issue 16): one unsharded sweep and the same sweep as three `--shard k/3`
// runs (real Claude Code CLI, bwrap, git, the scripted model behind the gateway); `wfbench merge` must give the same
// results.jsonl, report.md and sweep-plan.json except what depends on the clock or the CLI's random session ids. The
// merge is then fed broken inputs (a missing shard, a duplicated cell, a shard given twice, another sweep, edited
// files, a symlinked transcript) and must refuse each with exit 2 before it creates the output directory.
import { spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestJson, sha256Hex } from "@wfbench/digest";
import { REPO_ROOT, RUNNER_MAIN, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/shard-merge", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);
const base = mkdtempSync(join(tmpdir(), "wfbench-shard-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const SWEEP = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "workflow_direct", "baseline", "--repeats", "2", "--workers", "2"];
/** Row fields that depend on the clock or on the CLI's random session ids (transcript names and bytes carry them). */
const VOLATILE = ["recorded_at", "duration_s", "timings_ms", "session_ids", "transcript_artifacts"];

interface Row {
  [key: string]: unknown;
  task: string;
  arm: string;
  run: number;
  transcript_artifacts: { path: string; sha256: string; bytes: number }[];
  patch_artifact: string | null;
  diff_digest: string | null;
  contamination_arms: string[];
}

/** One `wfbench <command>` from source, with only PATH and HOME from the host. */
function wfbench(command: string, args: readonly string[]): Promise<RunnerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@wfbench/source", "--import", "tsx", RUNNER_MAIN, command, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function stable(row: Row): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([key]) => !VOLATILE.includes(key)));
}

/** report.md without what the clock decides: every table column about wall time, and the harness-overhead lines. */
function stableReport(text: string): string {
  const lines = text.split("\n");
  let wallColumns: number[] = [];
  return lines
    .filter((line) => !line.startsWith("Harness overhead:") && !line.startsWith("Of that, the task's own commands"))
    .map((line, index) => {
      if (!line.startsWith("|")) {
        wallColumns = [];
        return line;
      }
      const cells = line.split("|");
      if (lines[index + 1]?.startsWith("|---")) wallColumns = cells.flatMap((cell, i) => (/wall/u.test(cell) ? [i] : []));
      return cells.map((cell, i) => (wallColumns.includes(i) && !/wall/u.test(cell) ? " ~ " : cell)).join("|");
    })
    .join("\n");
}

const dir = (name: string): string => join(base, name);
function copyShard(from: string, to: string): string {
  cpSync(dir(from), dir(to), { recursive: true });
  return dir(to);
}

describe.skipIf(tools.skip)("wfbench run --shard k/N and wfbench merge", () => {
  const runs: Record<string, RunnerResult> = {};
  beforeAll(async () => {
    runs["full"] = await runRunner([...SWEEP, "--out", dir("full")]);
    for (const k of [1, 2, 3]) runs[`s${k}`] = await runRunner([...SWEEP, "--shard", `${k}/3`, "--out", dir(`s${k}`)]);
  }, 300_000);

  it("splits the plan: each shard runs its own cells, records the whole plan and its shard, and writes no promotion", () => {
    for (const [name, run] of Object.entries(runs)) expect(run.code, `${name}: ${run.stderr}`).toBe(0);
    for (const k of [1, 2, 3]) expect(runs[`s${k}`]?.stdout).toMatch(new RegExp(`wfbench: \\d+ cell\\(s\\) \\(shard ${k}/3 of 8 planned\\)`, "u"));
    const full = readResultRows<Row>(dir("full")).map((row) => `${row.task}/${row.arm}/${row.run}`);
    expect(full).toHaveLength(8);
    const fullPlan = JSON.parse(readFileSync(join(dir("full"), "sweep-plan.json"), "utf8")) as { shard: unknown; identity_digest: string; cells: unknown[] };
    expect(fullPlan.shard).toBeNull();
    const seen: string[] = [];
    for (const k of [1, 2, 3]) {
      const plan = JSON.parse(readFileSync(join(dir(`s${k}`), "sweep-plan.json"), "utf8")) as typeof fullPlan;
      expect(plan.shard).toEqual({ index: k, count: 3 });
      expect([plan.identity_digest, plan.cells]).toEqual([fullPlan.identity_digest, fullPlan.cells]);
      const rows = readResultRows<Row>(dir(`s${k}`)).map((row) => `${row.task}/${row.arm}/${row.run}`);
      expect(rows.length).toBeGreaterThan(0);
      // In canonical order within the shard, as a sub-sequence of the unsharded sweep.
      expect(rows).toEqual(full.filter((cell) => rows.includes(cell)));
      seen.push(...rows);
    }
    expect(seen.sort()).toEqual([...full].sort());
  });

  it("merges three shards into what the unsharded sweep wrote, except timestamps and session ids", async () => {
    const result = await wfbench("merge", [dir("merged"), dir("s3"), dir("s1"), dir("s2")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("merged 3 shard(s): 8 row(s), sweep complete; contamination alarm on 2 row(s)");
    const full = readResultRows<Row>(dir("full"));
    const merged = readResultRows<Row>(dir("merged"));
    expect(merged.map(stable)).toEqual(full.map(stable));
    expect(stableReport(readFileSync(join(dir("merged"), "report.md"), "utf8"))).toBe(stableReport(readFileSync(join(dir("full"), "report.md"), "utf8")));
    expect(readFileSync(join(dir("merged"), "sweep-plan.json"), "utf8")).toBe(readFileSync(join(dir("full"), "sweep-plan.json"), "utf8"));
    for (const name of ["report.html", "report-stats.json", "report-provenance.json", "gateway-usage.jsonl"]) expect(existsSync(join(dir("merged"), name)), name).toBe(true);
    expect(existsSync(join(dir("merged"), "promotion.json"))).toBe(false);
    // The merged directory is an ordinary output directory: `wfbench report` re-renders it byte for byte.
    const written = readFileSync(join(dir("merged"), "report.md"), "utf8");
    const rerendered = await wfbench("report", [dir("merged")]);
    expect(rerendered.code, rerendered.stderr).toBe(0);
    expect(readFileSync(join(dir("merged"), "report.md"), "utf8")).toBe(written);
    // Every artefact a merged row names was copied (0600, transcripts dir 0700) and still has the digest it records.
    expect(statSync(join(dir("merged"), "transcripts")).mode & 0o777).toBe(0o700);
    for (const row of merged) {
      expect(row.transcript_artifacts.length).toBeGreaterThan(0);
      for (const artifact of row.transcript_artifacts) {
        const bytes = readFileSync(join(dir("merged"), artifact.path));
        expect([sha256Hex(bytes), bytes.length]).toEqual([artifact.sha256, artifact.bytes]);
        expect(statSync(join(dir("merged"), artifact.path)).mode & 0o777).toBe(0o600);
      }
      expect(sha256Hex(readFileSync(join(dir("merged"), row.patch_artifact ?? "")))).toBe(row.diff_digest);
    }
  }, 120_000);

  it("raises the contamination alarm on identical non-empty patches of one task and run, also across shards", () => {
    const merged = readResultRows<Row>(dir("merged"));
    const flagged = merged.filter((row) => row.contamination_arms.length > 0).map((row) => [row.task, row.run, row.arm, row.contamination_arms]);
    expect(flagged).toEqual([
      ["alpha", 0, "baseline", ["workflow_direct"]],
      ["alpha", 1, "baseline", ["workflow_direct"]],
    ]);
    const byCell = new Map(merged.map((row) => [`${row.task}/${row.arm}/${row.run}`, row]));
    expect(byCell.get("alpha/baseline/0")?.diff_digest).toBe(byCell.get("alpha/workflow_direct/0")?.diff_digest);
    expect(byCell.get("beta/baseline/0")?.diff_digest).not.toBe(byCell.get("beta/workflow_direct/0")?.diff_digest);
    expect(readFileSync(join(dir("merged"), "report.md"), "utf8")).toContain("alpha/run0: workflow_direct = baseline; alpha/run1: workflow_direct = baseline");
    // A shard alone sees only its own arms: its flags are its own business; the merge's are recomputed over all rows.
    const lonely = [1, 2, 3].flatMap((k) => readResultRows<Row>(dir(`s${k}`))).filter((row) => row.contamination_arms.length > 0);
    expect(lonely.length).toBeLessThanOrEqual(2);
  });

  async function refused(args: string[], message: RegExp): Promise<void> {
    const out = dir(`refused-${Math.random().toString(16).slice(2)}`);
    const result = await wfbench("merge", [out, ...args]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(out), "nothing is created on a refusal").toBe(false);
  }

  it("refuses a missing cell (a shard not given, a row lost) naming the cells and the fix", async () => {
    await refused([dir("s1"), dir("s2")], /planned cell\(s\) missing: .*\(shard\(s\) 3\/3 not given\): re-run the shard/u);
    const lost = copyShard("s2", "s2-lost");
    const lines = readFileSync(join(lost, "results.jsonl"), "utf8").trimEnd().split("\n");
    writeFileSync(join(lost, "results.jsonl"), `${lines.slice(1).join("\n")}\n`);
    await refused([dir("s1"), lost, dir("s3")], /1 planned cell\(s\) missing: \[/u);
  }, 60_000);

  it("refuses a duplicated cell and a shard given twice", async () => {
    const duplicated = copyShard("s2", "s2-dup");
    appendFileSync(join(duplicated, "results.jsonl"), readFileSync(join(dir("s1"), "results.jsonl"), "utf8").split("\n")[0] + "\n");
    await refused([dir("s1"), duplicated, dir("s3")], /is recorded twice \(in .*s1 and .*s2-dup\): each planned cell must be in exactly one shard/u);
    await refused([dir("s1"), dir("s2"), dir("s2"), dir("s3")], /shard 2\/3 given twice/u);
  }, 60_000);

  it("refuses a shard of another sweep identity, and a plan edited without its digest", async () => {
    const other = copyShard("s3", "s3-other");
    const plan = JSON.parse(readFileSync(join(other, "sweep-plan.json"), "utf8")) as { identity: Record<string, unknown>; identity_digest: string };
    plan.identity["effort"] = "low";
    writeFileSync(join(other, "sweep-plan.json"), JSON.stringify({ ...plan, identity_digest: digestJson(plan.identity) }, null, 2));
    await refused([dir("s1"), dir("s2"), other], /is from another sweep than .*: identity field effort \("xhigh" vs "low"\): merge shards of one sweep only/u);
    writeFileSync(join(other, "sweep-plan.json"), JSON.stringify({ ...plan, identity_digest: JSON.parse(readFileSync(join(dir("s3"), "sweep-plan.json"), "utf8")).identity_digest as string }, null, 2));
    await refused([dir("s1"), dir("s2"), other], /identity does not match its identity_digest/u);
  }, 60_000);

  it("refuses an edited transcript, a symlinked one, and a non-empty output directory", async () => {
    const edited = copyShard("s1", "s1-edited");
    const row = readResultRows<Row>(edited)[0] as Row;
    const transcript = join(edited, row.transcript_artifacts[0]?.path ?? "");
    writeFileSync(transcript, readFileSync(transcript, "utf8").replace(/.$/su, " "));
    await refused([edited, dir("s2"), dir("s3")], /transcript transcripts\/.* does not match the digest its row records/u);
    const linked = copyShard("s1", "s1-linked");
    const target = join(linked, row.transcript_artifacts[0]?.path ?? "");
    unlinkSync(target);
    symlinkSync(join(dir("s1"), row.transcript_artifacts[0]?.path ?? ""), target);
    await refused([linked, dir("s2"), dir("s3")], /transcripts\/.* refused \(DURABLE_FS_NOT_FOLLOWED\)/u);
    const busy = dir("busy");
    mkdirSync(busy);
    writeFileSync(join(busy, "keep.txt"), "x");
    const result = await wfbench("merge", [busy, dir("s1"), dir("s2"), dir("s3")]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringMatching(/is not empty: pass a new directory/u)]);
    expect(readdirSync(busy)).toEqual(["keep.txt"]);
  }, 60_000);
});

describe.skipIf(tools.skip)("a sharded candidate sweep", () => {
  const OVERLAY = join(REPO_ROOT, "tasks/demo/overlays/work-v2");
  const CANDIDATE = ["--candidate-overlay", OVERLAY, "--repeats", "1", "--promotion-min-runs", "1", "--workers", "2"];
  interface PromotionFile {
    run_status: string;
    candidate_overlay_digest: string;
    target_base_digests: Record<string, string>;
    required_candidate_arms: string[];
    selected_tasks: unknown[];
    policy: unknown;
    decisions: { candidate_arm: string; decision: string; median_improvement_pct: number | null; reasons: string[] }[];
  }
  const promotionOf = (out: string): PromotionFile => JSON.parse(readFileSync(join(out, "promotion.json"), "utf8")) as PromotionFile;
  const stablePromotion = (file: PromotionFile): unknown => ({
    ...Object.fromEntries(["run_status", "candidate_overlay_digest", "target_base_digests", "required_candidate_arms", "selected_tasks", "policy"].map((key) => [key, file[key as keyof PromotionFile]])),
    decisions: file.decisions.map((d) => [d.candidate_arm, d.decision, d.median_improvement_pct, d.reasons]),
  });

  it("writes promotion.json only at the merge, equal to the unsharded sweep's decisions", async () => {
    const full = await runRunner([...CANDIDATE, "--out", dir("cand-full")]);
    expect(full.code, full.stderr).toBe(0);
    for (const k of [1, 2]) {
      const shard = await runRunner([...CANDIDATE, "--shard", `${k}/2`, "--out", dir(`cand-s${k}`)]);
      expect(shard.code, shard.stderr).toBe(0);
      expect(existsSync(join(dir(`cand-s${k}`), "promotion.json")), "a shard alone never decides").toBe(false);
      expect(shard.stdout).not.toContain("promotion:");
    }
    const merged = await wfbench("merge", [dir("cand-merged"), dir("cand-s1"), dir("cand-s2")]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/promotion: candidate_workflow: \w+, candidate_workflow_direct: \w+/u);
    expect(stablePromotion(promotionOf(dir("cand-merged")))).toEqual(stablePromotion(promotionOf(dir("cand-full"))));
    expect(readFileSync(join(dir("cand-merged"), "report.md"), "utf8")).toContain("## Promotion");
  }, 300_000);
});
