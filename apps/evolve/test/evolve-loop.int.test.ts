// The offline evolve loop end to end through the real CLI (`wfbench evolve`, scripted model, demo repositories): a
// manual overlay that promotes and is applied to a temp git repo root, one the gate keeps out, a drifted destination
// refused before any paid step, the apply-time check refusing a promotion.json whose schema number was edited, whose
// evidence expired or whose decision no longer recomputes, and SIGTERM during a sweep stopping its process group.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readGateOutcome } from "@wfbench/evolve-loop";
import type { ApplyBindings } from "@wfbench/promotion-gate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, commitIncumbentSkills, runEvolve, type EvolveOutcome } from "./support/evolve-process.js";

const SKILL = ".claude/skills/demo-work/SKILL.md";
const scratch = mkdtempSync(join(tmpdir(), "evolve-loop-int-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));


/** The demo suite's implementation tasks only (every selected task must carry evidence of the candidate arms). */
const SUITE = join(REPO_ROOT, "tasks/demo-implementation.yaml");

/** A git repo root holding the demo's incumbent skills, committed. */
const repoRoot = (name: string): string => commitIncumbentSkills(join(scratch, name));
const evolve = (args: readonly string[], onStdout?: (text: string, child: ReturnType<typeof spawn>) => void): Promise<EvolveOutcome> => runEvolve(args, onStdout === undefined ? {} : { onStdout });

const overlay = (name: string): string => join(REPO_ROOT, "tasks/demo/overlays", name);

describe("wfbench evolve, offline", () => {
  const suite = SUITE;

  it("runs tasks/demo-implementation.yaml, which is tasks/demo.yaml's implementation half verbatim", () => {
    const demo = readFileSync(join(REPO_ROOT, "tasks/demo.yaml"), "utf8");
    const half = readFileSync(SUITE, "utf8");
    expect(half.slice(half.indexOf("skills:\n"))).toBe(demo.slice(demo.indexOf("skills:\n"), demo.indexOf("  - id: demo-review-")));
  });

  it("refuses --apply when a destination drifted from HEAD, before any paid step", async () => {
    const root = repoRoot("drifted");
    writeFileSync(join(root, SKILL), `${readFileSync(join(root, SKILL), "utf8")}\nlocal edit\n`);
    const out = join(scratch, "out-drifted");
    const result = await evolve(["--tasks", suite, "--initial-overlay", overlay("work-v2"), "--runs", "3", "--apply", "--repo-root", root, "--out-root", out]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`${SKILL}: uncommitted or drifted bytes`);
    expect(existsSync(join(out, "gen-0/bench"))).toBe(false);
    expect(result.stdout).not.toMatch(/wfbench run started/u);
  });

  it("stops the sweep's whole process group on SIGTERM and exits 130 within 15 s", async () => {
    const out = join(scratch, "out-sigterm");
    let group: number | null = null;
    let signalledAt = 0;
    const result = await evolve(["--tasks", suite, "--initial-overlay", overlay("work-v2"), "--runs", "3", "--repo-root", repoRoot("sigterm"), "--out-root", out], (text, child) => {
      const started = /wfbench run started: pid \d+, process group (\d+)/u.exec(text);
      if (started !== null && group === null) group = Number(started[1]);
      // Once a cell is running (sandbox, gateway, scripted model and CLI all up), stop evolve.
      if (signalledAt === 0 && /\] starting \(/u.test(text)) {
        signalledAt = Date.now();
        child.kill("SIGTERM");
      }
    });
    expect(signalledAt, result.stderr).toBeGreaterThan(0);
    expect(result.code).toBe(130);
    expect(result.closedAt - signalledAt).toBeLessThan(15_500);
    expect(group).not.toBeNull();
    const ps = spawnSync("ps", ["-eo", "pgid=,args="], { encoding: "utf8" }).stdout.split("\n");
    expect(ps.filter((line) => line.trim().split(/\s+/u)[0] === String(group))).toEqual([]);
    expect(ps.filter((line) => line.includes(out))).toEqual([]);
  }, 120_000);

  it("keeps the incumbent for work-v3: repo unchanged, exit 0, no candidate cleared the gate", async () => {
    const root = repoRoot("keep");
    const before = readFileSync(join(root, SKILL));
    const result = await evolve(["--tasks", suite, "--initial-overlay", overlay("work-v3"), "--runs", "3", "--workers", "2", "--apply", "--repo-root", root, "--out-root", join(scratch, "out-keep")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/candidate_workflow: keep_incumbent/u);
    expect(result.stdout).toMatch(/NOT PROMOTED — /u);
    expect(result.stdout).toMatch(/No candidate cleared the gate/u);
    expect(readFileSync(join(root, SKILL)).equals(before)).toBe(true);
  }, 1_500_000);

  describe("work-v2 with --apply (one promoted run, several checks)", () => {
    let root: string;
    let out: string;
    let result: EvolveOutcome;
    beforeAll(async () => {
      root = repoRoot("promote");
      out = join(scratch, "out-promote");
      result = await evolve(["--tasks", suite, "--initial-overlay", overlay("work-v2"), "--runs", "3", "--workers", "2", "--apply", "--repo-root", root, "--out-root", out]);
    }, 1_500_000);

    it("promotes, applies the overlay's bytes to the repo root and exits 0", () => {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/PROMOTED: generation 0/u);
      expect(result.stdout).toContain(`applied to ${root}`);
      expect(result.stdout).toContain(`  ${SKILL}\n`);
      expect(readFileSync(join(root, SKILL)).equals(readFileSync(join(overlay("work-v2"), SKILL)))).toBe(true);
    });

    it("records the bindings once, the frozen overlay read-only and the provenance without secrets", () => {
      const bindings = JSON.parse(readFileSync(join(out, "task-bindings.json"), "utf8")) as { id: string }[];
      expect(bindings.map((b) => b.id)).toEqual(["demo-clamp", "demo-ledger-rounding", "demo-ledger-currency"]);
      const frozen = spawnSync("stat", ["-c", "%a", join(out, "gen-0/frozen-overlay", SKILL), join(out, "gen-0/frozen-overlay/.claude/skills/demo-work")], { encoding: "utf8" }).stdout.trim().split("\n");
      expect(frozen).toEqual(["400", "500"]);
      const bases = JSON.parse(readFileSync(join(out, "gen-0/target-bases.json"), "utf8")) as Record<string, string>;
      expect(Object.keys(bases)).toEqual([SKILL]);
      const provenance = JSON.parse(readFileSync(join(out, "runtime-provenance.json"), "utf8")) as Record<string, unknown>;
      expect(provenance).toMatchObject({ schema_version: 1, benchmark_model: "claude-sonnet-4-5", apply: true, runtime_cap_seconds: null });
    });

    it("refuses the same promotion.json once its schema number is edited (apply-time check)", async () => {
      const bindings = JSON.parse(readFileSync(join(out, "gen-0/apply-bindings.json"), "utf8")) as ApplyBindings;
      const promotionPath = join(out, "gen-0/bench/promotion.json");
      expect((await readGateOutcome(promotionPath, bindings, new Date())).kind).toBe("promote");
      const edited = join(scratch, "promotion-edited.json");
      writeFileSync(edited, readFileSync(promotionPath, "utf8").replace('"schema_version": 6', '"schema_version": 7'));
      const outcome = await readGateOutcome(edited, bindings, new Date());
      expect(outcome).toMatchObject({ kind: "not-promoted" });
      expect(outcome.kind === "not-promoted" ? outcome.reason : "").toMatch(/^schema_version: must be 6/u);
    });

    it("refuses the same promotion.json once its evidence expired, and once a decision no longer recomputes", async () => {
      const bindings = JSON.parse(readFileSync(join(out, "gen-0/apply-bindings.json"), "utf8")) as ApplyBindings;
      const promotionPath = join(out, "gen-0/bench/promotion.json");
      const promotion = JSON.parse(readFileSync(promotionPath, "utf8")) as { evidence_expires_at: string; decisions: { decision: string; reasons: string[] }[] };
      const afterExpiry = new Date(Date.parse(promotion.evidence_expires_at) + 60_000);
      const expired = await readGateOutcome(promotionPath, bindings, afterExpiry);
      expect(expired.kind === "not-promoted" ? expired.reason : expired.kind).toBe("evidence_expires_at: evidence has expired; rerun the benchmark");
      // A hand-edited reason keeps the decision "promote" but no longer equals what the embedded evidence recomputes.
      const forged = structuredClone(promotion);
      forged.decisions[0]?.reasons.push("reviewed by a human");
      const forgedPath = join(scratch, "promotion-forged-reason.json");
      writeFileSync(forgedPath, `${JSON.stringify(forged, null, 2)}\n`);
      const outcome = await readGateOutcome(forgedPath, bindings, new Date());
      expect(outcome.kind === "not-promoted" ? outcome.reason : outcome.kind).toBe("decisions[0]: does not equal the decision recomputed from its embedded evidence");
    });
  });
});
