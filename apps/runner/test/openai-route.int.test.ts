// The OpenAI route end to end: the runner with an OpenAI model id, the key from WFBENCH_OPENAI_API_KEY and --base-url
// drives the real CLI in bwrap through the metering gateway and its in-process translator to the scripted model in
// its OpenAI-compatible mode (127.0.0.1 TCP, Bearer key required, one model known). Usage is metered on the Anthropic
// side, and the key reaches no file under --out. The local-model template's id form (`openai/<id>`, tools/local-model)
// runs the same way against a provider that knows only the bare id, and /proc shows no child holding the key.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadScript, startScriptedModel, type ScriptedModelServer } from "@wfbench/scripted-model";
import { findSecretExposure, sampleDescendants, type DescendantSampler } from "./support/process-sampler.js";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const KEY = "sk-proj-wfbench-openai-int-KEY-3b9d2f";
const MODEL = "gpt-4.1-mini";
// The id tools/local-model/ollama.env documents: routed by its `openai/` prefix, which the provider never sees.
const LOCAL_MODEL = "qwen2.5-coder:7b";

const dirs: string[] = [];
let provider: ScriptedModelServer | null = null;
let localProvider: ScriptedModelServer | null = null;

beforeAll(async () => {
  const script = await loadScript(join(REPO_ROOT, "tasks/demo/scripted-model.yaml"));
  if (!script.ok) throw new Error(script.error.message);
  provider = await startScriptedModel({ script: { ...script.value, model: MODEL }, listen: { host: "127.0.0.1", port: 0 }, api: "openai", requireApiKey: KEY, knownModels: [MODEL] });
  localProvider = await startScriptedModel({ script: { ...script.value, model: LOCAL_MODEL }, listen: { host: "127.0.0.1", port: 0 }, api: "openai", requireApiKey: KEY, knownModels: [LOCAL_MODEL] });
});
afterAll(async () => {
  await provider?.close();
  await localProvider?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function newOut(): string {
  const parent = mkdtempSync(join(tmpdir(), "wfbench-openai-"));
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

describe("nx run runner:bench --model gpt-* (the OpenAI route through the translator)", () => {
  it("refuses an OpenAI model id without the OpenAI key, naming the variable", async () => {
    const result = await runRunner(["--tasks", join(REPO_ROOT, "apps/runner/test/fixtures/no-such-suite.yaml"), "--model", MODEL], { env: { WFBENCH_ANTHROPIC_API_KEY: "sk-ant-unrelated" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("set WFBENCH_OPENAI_API_KEY");
  });

  it.skipIf(tools.skip)(
    "resolves the demo tasks as scripted, meters every request on the Anthropic side, and no file holds the key",
    async () => {
      const out = newOut();
      const result = await runRunner(["--out", out, "--model", MODEL, "--base-url", provider?.baseUrl ?? ""], { env: { WFBENCH_OPENAI_API_KEY: KEY } });
      const context = `exit ${String(result.code)}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}\nprovider:\n${JSON.stringify(provider?.requests.slice(-3).map((r) => r.outcome))}`;
      expect(result.code, context).toBe(0);
      const rows = readResultRows(out);
      expect(rows.map((r) => `${String(r["task"])}/${String(r["arm"])}/${String(r["resolved"])}`)).toEqual(["demo-clamp/workflow/true", "demo-clamp/workflow_direct/true", "demo-clamp/baseline/false", "demo-ledger-rounding/workflow/true", "demo-ledger-rounding/workflow_direct/false", "demo-ledger-rounding/baseline/true", "demo-ledger-currency/workflow/true", "demo-ledger-currency/workflow_direct/false", "demo-ledger-currency/baseline/false", "demo-review-median/review/true", "demo-review-split/review/true", "demo-review-variance/review/true"]);
      expect(new Set(rows.map((r) => r["upstream"]))).toEqual(new Set(["openai"]));
      for (const row of rows) {
        expect(row["wire_requests"], JSON.stringify(row)).toBeGreaterThan(0);
        expect(row["wire_input_tokens"]).toBeGreaterThan(0);
        expect(typeof row["cost_disagreement_flagged"]).toBe("boolean");
      }
      const usage = readFileSync(join(out, "gateway-usage.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      const served = usage.filter((u) => u["cell_id"] !== "wfbench-upstream-canary");
      expect(served.length).toBeGreaterThan(0);
      for (const u of served) {
        expect(u).toMatchObject({ upstream: "openai", outcome: "ok", model_served: MODEL, sse_conformant: true });
        expect((u["usage"] as Record<string, unknown>)["output_tokens"]).toEqual(expect.any(Number));
      }
      // Every model request reached the provider as a chat completion with the Bearer key (401 otherwise).
      expect(provider?.requests.some((entry) => entry.outcome.kind === "unauthorized")).toBe(false);
      expect(new Set(provider?.requests.map((entry) => entry.path))).toEqual(new Set(["/v1/chat/completions"]));
      const report = readFileSync(join(out, "report.md"), "utf8");
      expect(report).toContain("- Model upstream: `openai`");
      expect(report).toContain("Upstream canary (1-token request before the first cell): `ok`");
      const files = filesUnder(out);
      expect(files.length).toBeGreaterThan(5);
      for (const file of files) expect(readFileSync(file).includes(KEY), file).toBe(false);
      expect(`${result.stdout}${result.stderr}`).not.toContain(KEY);
    },
    300_000,
  );

  it.skipIf(tools.skip)(
    "runs the local-model id form openai/<id> (the provider sees the bare id); no child's argv or env holds the key",
    async () => {
      const out = newOut();
      let sampler: DescendantSampler | null = null;
      const result = await runRunner(["--out", out, "--model", `openai/${LOCAL_MODEL}`, "--base-url", localProvider?.baseUrl ?? ""], {
        env: { WFBENCH_OPENAI_API_KEY: KEY },
        // The installed command's path: `node --import tsx` hands the key to tsx's esbuild child (real-upstream test).
        entry: "bin",
        onSpawn: (child) => {
          if (child.pid !== undefined) sampler = sampleDescendants(child.pid);
        },
      });
      const sampled = (sampler as DescendantSampler | null)?.stop();
      expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
      const rows = readResultRows(out);
      expect(rows.map((r) => `${String(r["task"])}/${String(r["arm"])}/${String(r["resolved"])}`)).toEqual(["demo-clamp/workflow/true", "demo-clamp/workflow_direct/true", "demo-clamp/baseline/false", "demo-ledger-rounding/workflow/true", "demo-ledger-rounding/workflow_direct/false", "demo-ledger-rounding/baseline/true", "demo-ledger-currency/workflow/true", "demo-ledger-currency/workflow_direct/false", "demo-ledger-currency/baseline/false", "demo-review-median/review/true", "demo-review-split/review/true", "demo-review-variance/review/true"]);
      // The provider answers 404 to any other model name, so every request carried the bare id; unpriced, so null.
      expect(localProvider?.requests.filter((entry) => entry.outcome.kind === "not_found" || entry.outcome.kind === "unauthorized")).toEqual([]);
      expect(new Set(localProvider?.requests.map((entry) => entry.model))).toEqual(new Set([LOCAL_MODEL]));
      for (const row of rows) expect(row["wire_cost_usd"] ?? null, JSON.stringify(row)).toBeNull();
      if (sampled === undefined) throw new Error("the /proc sampler never started");
      const exposure = findSecretExposure(sampled, KEY);
      expect(exposure.holders, "descendants whose argv/env hold the key").toEqual([]);
      expect(exposure.sessions.length, `no claude process among: ${exposure.seen.join("; ")}`).toBeGreaterThan(0);
      for (const session of exposure.sessions) expect(session.credentials.map(([name, value]) => `${name}=${/^sk-wfb-[0-9a-f]{48}$/u.test(value) ? "<cell token>" : value}`), session.describe).toEqual(["ANTHROPIC_API_KEY=<cell token>"]);
      for (const file of filesUnder(out)) expect(readFileSync(file).includes(KEY), file).toBe(false);
    },
    300_000,
  );

  it.skipIf(tools.skip)(
    "stops on a refused OpenAI key before the first cell, naming the OpenAI variable",
    async () => {
      const out = newOut();
      const wrong = `${KEY}-wrong`;
      const result = await runRunner(["--out", out, "--model", MODEL, "--base-url", provider?.baseUrl ?? ""], { env: { WFBENCH_OPENAI_API_KEY: wrong } });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain("SWEEP_UPSTREAM_KEY_REFUSED");
      expect(result.stderr).toContain("check WFBENCH_OPENAI_API_KEY / --openai-api-key");
      expect(existsSync(join(out, "results.jsonl"))).toBe(false);
      expect(`${result.stdout}${result.stderr}`).not.toContain(wrong);
      for (const file of filesUnder(out)) expect(readFileSync(file).includes(wrong), file).toBe(false);
    },
    60_000,
  );
});
