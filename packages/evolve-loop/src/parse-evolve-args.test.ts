import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseEvolveArgs, type EvolveArgsContext, type EvolveArgsResult, type EvolveOptions } from "./parse-evolve-args.js";

const pluginDir = mkdtempSync(join(tmpdir(), "evolve-args-"));
afterAll(() => rmSync(pluginDir, { recursive: true, force: true }));

const CONTEXT: EvolveArgsContext = { cwd: "/repo", now: new Date("2026-03-04T05:06:07Z"), ci: false, uptimeText: "1000.00 10.00\n" };
const BASE = ["--tasks", "tasks/x.yaml", "--model", "claude-sonnet-4-5"];

function options(result: EvolveArgsResult): EvolveOptions {
  if (!result.ok || result.help) throw new Error(`expected options, got ${JSON.stringify(result)}`);
  return result.options;
}

function refusal(argv: readonly string[], context: Partial<EvolveArgsContext> = {}): { flag: string; message: string } {
  const result = parseEvolveArgs(argv, { ...CONTEXT, ...context });
  if (result.ok) throw new Error(`expected a usage error for ${argv.join(" ")}`);
  return result.error;
}

describe("parseEvolveArgs", () => {
  it("refuses a --base-url carrying credentials before anything (runtime-provenance.json's argv) records it", () => {
    for (const argv of [[...BASE, "--base-url", "https://user:hunter2-secret@proxy.example"], [...BASE, "--base-url=https://hunter2-secret@proxy.example/v1"]]) {
      const error = refusal(argv);
      expect(error.flag).toBe("--base-url");
      expect(error.message).toMatch(/must not carry credentials/u);
      expect(error.message).not.toContain("hunter2-secret");
    }
    expect(options(parseEvolveArgs([...BASE, "--base-url", "https://proxy.example"], CONTEXT)).baseUrl).toBe("https://proxy.example");
  });

  it("fills the §2.2 defaults", () => {
    const o = options(parseEvolveArgs(BASE, CONTEXT));
    expect(o).toMatchObject({
      tasks: "/repo/tasks/x.yaml",
      model: "claude-sonnet-4-5",
      proposerModel: "claude-sonnet-4-5",
      runs: 3,
      workers: 1,
      generations: 1,
      arms: null,
      seedResults: null,
      initialOverlay: null,
      apply: false,
      outRoot: "/repo/results/wfevolve-20260304-050607",
      claudeBin: null,
      effort: "xhigh",
      timeoutS: 5400,
      maxRuntimeS: null,
      promotion: { metric: "cost_usd", minRuns: 3, minImprovementPct: 5, maxTaskRegressionPct: 20 },
      includeExpensive: false,
      unsafeNoBwrap: false,
    });
  });

  it("takes --repo-root (default cwd) and --script as absolute paths", () => {
    expect(options(parseEvolveArgs(BASE, CONTEXT))).toMatchObject({ repoRoot: "/repo", script: null });
    expect(options(parseEvolveArgs([...BASE, "--repo-root", "work", "--script", "s.yaml"], CONTEXT))).toMatchObject({ repoRoot: "/repo/work", script: "/repo/s.yaml" });
    expect(refusal([...BASE, "--script", " "]).flag).toBe("--script");
    expect(options(parseEvolveArgs(BASE, CONTEXT))).toMatchObject({ proposerScript: null });
    expect(options(parseEvolveArgs([...BASE, "--proposer-script", "p.yaml"], CONTEXT))).toMatchObject({ script: null, proposerScript: "/repo/p.yaml" });
    expect(refusal([...BASE, "--proposer-script", ""]).flag).toBe("--proposer-script");
  });

  it("answers --help without needing the required flags", () => {
    expect(parseEvolveArgs(["--help"], CONTEXT)).toEqual({ ok: true, help: true });
  });

  it("refuses missing, floating or malformed values, naming the flag", () => {
    expect(refusal(["--model", "m-1"]).flag).toBe("--tasks");
    expect(refusal(["--tasks", "t.yaml"]).flag).toBe("--model");
    expect(refusal(["--tasks", "t.yaml", "--model", "claude-latest"]).message).toMatch(/floats/u);
    expect(refusal([...BASE, "--proposer-model", "auto"]).flag).toBe("--proposer-model");
    expect(refusal([...BASE, "--workers", "9"]).message).toMatch(/out of range 1\.\.8/u);
    expect(refusal([...BASE, "--workers", "0"]).flag).toBe("--workers");
    expect(refusal([...BASE, "--generations", "0"]).flag).toBe("--generations");
    expect(refusal([...BASE, "--runs", "x"]).flag).toBe("--runs");
    expect(refusal([...BASE, "--effort", "huge"]).flag).toBe("--effort");
    expect(refusal([...BASE, "--timeout", "0"]).flag).toBe("--timeout");
    expect(refusal([...BASE, "--promotion-min-improvement", "lots"]).flag).toBe("--promotion-min-improvement");
    expect(refusal([...BASE, "--bogus"]).message).toMatch(/see --help/u);
  });

  it("accepts incumbent arms only, each once", () => {
    expect(options(parseEvolveArgs([...BASE, "--arms", "workflow", "--arms", "workflow_direct"], CONTEXT)).arms).toEqual(["workflow", "workflow_direct"]);
    expect(options(parseEvolveArgs(["--arms", "workflow", "workflow_direct", ...BASE], CONTEXT)).arms).toEqual(["workflow", "workflow_direct"]);
    expect(refusal([...BASE, "--arms"]).message).toMatch(/see --help/u);
    expect(refusal([...BASE, "--arms", "candidate_workflow"]).message).toMatch(/not an incumbent arm/u);
    expect(refusal([...BASE, "--arms", "workflow", "--arms", "workflow"]).message).toMatch(/twice/u);
  });

  it("needs an existing CE plugin directory and a version for review", () => {
    expect(refusal([...BASE, "--arms", "review"]).flag).toBe("--ce-plugin-dir");
    expect(refusal([...BASE, "--arms", "review", "--ce-plugin-dir", join(pluginDir, "missing"), "--ce-plugin-version", "1.0.0"]).flag).toBe("--ce-plugin-dir");
    expect(refusal([...BASE, "--arms", "review", "--ce-plugin-dir", pluginDir, "--ce-plugin-version", " "]).flag).toBe("--ce-plugin-version");
    expect(options(parseEvolveArgs([...BASE, "--arms", "review", "--ce-plugin-dir", pluginDir, "--ce-plugin-version", "1.0.0"], CONTEXT)).cePluginVersion).toBe("1.0.0");
  });

  it("allows --unsafe-no-bwrap only with --arms review, never with --apply or under CI", () => {
    const review = [...BASE, "--arms", "review", "--ce-plugin-dir", pluginDir, "--ce-plugin-version", "1.0.0", "--unsafe-no-bwrap"];
    expect(options(parseEvolveArgs(review, CONTEXT)).unsafeNoBwrap).toBe(true);
    expect(refusal([...review, "--apply"]).message).toMatch(/--apply/u);
    expect(refusal(review, { ci: true }).message).toMatch(/CI/u);
    expect(refusal([...BASE, "--unsafe-no-bwrap"]).message).toMatch(/only with --arms review/u);
  });

  it("takes the runtime cap from one flag or the instance window, never both", () => {
    expect(options(parseEvolveArgs([...BASE, "--max-runtime-seconds", "7200"], CONTEXT)).maxRuntimeS).toBe(7200);
    expect(refusal([...BASE, "--max-runtime-seconds", "0"]).flag).toBe("--max-runtime-seconds");
    expect(refusal([...BASE, "--max-runtime-seconds", "60", "--max-runtime-from-instance-window"]).message).toMatch(/exclude each other/u);
    expect(options(parseEvolveArgs([...BASE, "--max-runtime-from-instance-window"], CONTEXT)).maxRuntimeS).toBe(86_400 - 1000 - 5400);
    const overridden = { instanceWindowSeconds: "8000", stopReserveSeconds: "1000" };
    expect(options(parseEvolveArgs([...BASE, "--max-runtime-from-instance-window"], { ...CONTEXT, ...overridden })).maxRuntimeS).toBe(6000);
    expect(refusal([...BASE, "--max-runtime-from-instance-window"], { uptimeText: null }).message).toMatch(/readable \/proc\/uptime/u);
    expect(refusal([...BASE, "--max-runtime-from-instance-window"], { uptimeText: "80500.00 1.00" }).message).toMatch(/below the 600 s/u);
    expect(refusal([...BASE, "--max-runtime-from-instance-window"], { stopReserveSeconds: "soon" }).flag).toBe("EVENTBRIDGE_STOP_RESERVE_SECONDS");
  });
});
