// The runner pointed at an Anthropic-compatible endpoint with --base-url: the scripted demo model stands in for it as
// an external server on 127.0.0.1 TCP that demands a key and knows one model. The key reaches only the gateway (never
// a file under --out, nor any descendant's argv or environment as /proc shows them), and a refused key, an unknown
// model or a dead port each stop the sweep before the first cell.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadScript, startScriptedModel, type ScriptedModelServer } from "@wfbench/scripted-model";
import { findSecretExposure, sampleDescendants, type DescendantSampler } from "./support/process-sampler.js";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const KEY = "sk-ant-wfbench-int-test-KEY-7c1e9a";
const DEMO_MODEL = "claude-sonnet-4-5";
// The gateway mints `sk-wfb-` + 24 random bytes per cell (cell-tokens.ts); a session may hold nothing else secret.
const CELL_TOKEN = /^sk-wfb-[0-9a-f]{48}$/u;

const dirs: string[] = [];
let endpoint: ScriptedModelServer | null = null;

beforeAll(async () => {
  const script = await loadScript(join(REPO_ROOT, "tasks/demo/scripted-model.yaml"));
  if (!script.ok) throw new Error(script.error.message);
  endpoint = await startScriptedModel({ script: script.value, listen: { host: "127.0.0.1", port: 0 }, requireApiKey: KEY, knownModels: [DEMO_MODEL] });
});
afterAll(async () => {
  await endpoint?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function newOut(): string {
  const parent = mkdtempSync(join(tmpdir(), "wfbench-upstream-"));
  dirs.push(parent);
  return join(parent, "out");
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address !== null ? address.port : 0;
}

// Judged from /proc alone: the runner itself holds the key (it came in through its env, which proves the search can
// find it), but no descendant's argv or initial environment does, and every sandboxed CLI session carries exactly one
// credential, the gateway's per-cell token. At least one `claude`, one `bwrap` and the esbuild service must have been seen, so a sampler
// that missed the sessions fails instead of passing on nothing.
function assertNoChildHeldTheKey(runnerEnviron: Buffer | null, sampled: ReturnType<DescendantSampler["stop"]> | undefined): void {
  expect(runnerEnviron?.includes(KEY), "the runner's own /proc environ should hold the key it was given").toBe(true);
  if (sampled === undefined) throw new Error("the /proc sampler never started");
  const exposure = findSecretExposure(sampled, KEY);
  expect(exposure.holders, "descendants whose argv/env hold the key").toEqual([]);
  expect(exposure.seen.some((d) => d.includes(" esbuild: ")), `tsx's esbuild service was not seen among: ${exposure.seen.join("; ")}`).toBe(true);
  expect(exposure.bwrapSeen, `no bwrap among ${String(exposure.seen.length)} descendants in ${String(sampled.scans)} scans`).toBe(true);
  expect(exposure.sessions.length, `no claude process among: ${exposure.seen.join("; ")}`).toBeGreaterThan(0);
  for (const session of exposure.sessions) {
    expect(session.credentials.map(([name]) => name), session.describe).toEqual(["ANTHROPIC_API_KEY"]);
    expect(session.credentials[0]?.[1], session.describe).toMatch(CELL_TOKEN);
  }
}

describe("nx run runner:bench --base-url (a real Anthropic-compatible upstream)", () => {
  it("refuses a suite other than the demo without a key or --script, naming the variable to set", async () => {
    const result = await runRunner(["--tasks", join(REPO_ROOT, "apps/runner/test/fixtures/no-such-suite.yaml")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("set WFBENCH_ANTHROPIC_API_KEY");
    const both = await runRunner(["--tasks", join(REPO_ROOT, "tasks/demo.yaml"), "--script", join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "--base-url", "http://127.0.0.1:9"], { env: { WFBENCH_ANTHROPIC_API_KEY: KEY } });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--script selects the scripted model");
  });

  it("refuses plain http to a non-loopback host and userinfo in the URL, naming --base-url", async () => {
    const insecure = await runRunner(["--base-url", "http://192.0.2.1:4000"], { env: { WFBENCH_ANTHROPIC_API_KEY: KEY } });
    expect(insecure.code).toBe(2);
    expect(insecure.stderr).toContain("--base-url http://192.0.2.1:4000: use https");
    const userinfo = await runRunner(["--base-url", "https://u:pw@example.invalid"], { env: { WFBENCH_ANTHROPIC_API_KEY: KEY } });
    expect(userinfo.code).toBe(2);
    expect(userinfo.stderr).toContain("--base-url must not carry credentials");
  });

  it.skipIf(tools.skip)(
    "runs the demo suite against the endpoint with the env key; no file under --out holds the key",
    async () => {
      const out = newOut();
      let sampler: DescendantSampler | null = null;
      let runnerEnviron: Buffer | null = null;
      const result = await runRunner(["--out", out, "--base-url", endpoint?.baseUrl ?? ""], {
        // tsx spawns its esbuild service only on a transform-cache miss (a fresh clone, an edited file): with the cache
        // off it always runs, so the check below covers it. Through `node --import tsx` (runner:bench's command) that
        // child is spawned with the runner's whole environment before any runner code runs and holds the key (measured);
        // bin/wfbench.mjs holds credentials back while it registers the loader, so the installed command's path is used.
        env: { WFBENCH_ANTHROPIC_API_KEY: KEY, TSX_DISABLE_CACHE: "1" },
        entry: "bin",
        onSpawn: (child) => {
          if (child.pid === undefined) return;
          runnerEnviron = readFileSync(`/proc/${child.pid}/environ`);
          sampler = sampleDescendants(child.pid);
        },
      });
      const sampled = (sampler as DescendantSampler | null)?.stop();
      const context = `exit ${String(result.code)}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
      expect(result.code, context).toBe(0);
      const rows = readResultRows(out);
      expect(rows.map((r) => `${String(r["task"])}/${String(r["arm"])}/${String(r["resolved"])}`)).toEqual(["demo-clamp/workflow/true", "demo-clamp/workflow_direct/true", "demo-clamp/baseline/false", "demo-ledger-rounding/workflow/true", "demo-ledger-rounding/workflow_direct/false", "demo-ledger-rounding/baseline/true", "demo-ledger-currency/workflow/true", "demo-ledger-currency/workflow_direct/false", "demo-ledger-currency/baseline/false", "demo-review-median/review/true", "demo-review-split/review/true", "demo-review-variance/review/true"]);
      expect(new Set(rows.map((r) => r["upstream"]))).toEqual(new Set(["anthropic-compatible"]));
      const report = readFileSync(join(out, "report.md"), "utf8");
      expect(report).toContain("- Model upstream: `anthropic-compatible`");
      expect(report).toContain("Upstream canary (1-token request before the first cell): `ok`");
      // The endpoint saw the key on every request (it answers 401 otherwise) and the canary came first.
      expect(endpoint?.requests.some((entry) => entry.outcome.kind === "unauthorized")).toBe(false);
      const files = filesUnder(out);
      expect(files.length).toBeGreaterThan(5);
      for (const file of files) expect(readFileSync(file).includes(KEY), file).toBe(false);
      expect(`${result.stdout}${result.stderr}`).not.toContain(KEY);
      assertNoChildHeldTheKey(runnerEnviron, sampled);
    },
    300_000,
  );

  const failures: { name: string; args: () => Promise<string[]>; key: string; code: string; message: string }[] = [
    { name: "a refused key", args: async () => ["--base-url", endpoint?.baseUrl ?? ""], key: `${KEY}-wrong`, code: "SWEEP_UPSTREAM_KEY_REFUSED", message: "refused the key: check WFBENCH_ANTHROPIC_API_KEY" },
    { name: "an unknown model", args: async () => ["--base-url", endpoint?.baseUrl ?? "", "--model", "claude-nonexistent-9"], key: KEY, code: "SWEEP_UPSTREAM_MODEL_UNKNOWN", message: "does not serve --model claude-nonexistent-9" },
    { name: "a dead port", args: async () => ["--base-url", `http://127.0.0.1:${await deadPort()}`], key: KEY, code: "SWEEP_UPSTREAM_UNREACHABLE", message: "could not be reached: check --base-url" },
  ];
  for (const failure of failures) {
    it.skipIf(tools.skip)(
      `stops on ${failure.name} before the first cell, with its own message`,
      async () => {
        const out = newOut();
        const result = await runRunner(["--out", out, ...(await failure.args())], { env: { WFBENCH_ANTHROPIC_API_KEY: failure.key } });
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toContain(failure.code);
        expect(result.stderr).toContain(failure.message);
        expect(result.stdout).not.toContain("starting");
        expect(existsSync(join(out, "results.jsonl"))).toBe(false);
        expect(`${result.stdout}${result.stderr}`).not.toContain(failure.key);
        for (const file of filesUnder(out)) expect(readFileSync(file).includes(failure.key), file).toBe(false);
      },
      60_000,
    );
  }
});
