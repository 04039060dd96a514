// The proposer path of the offline evolve loop end to end through the real CLI (`wfbench evolve`, no
// --initial-overlay): generation 0's scripted proposer writes the work-v2 bytes, the sweep measures and promotes them
// as a model-proposed candidate, and --apply writes them to a temp git repo root; and a proposer whose gen-0 candidate
// is kept out gets that generation's proposal and bench rows as evidence in generation 1, whose candidate promotes.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, commitIncumbentSkills, runEvolve, type EvolveOutcome } from "./support/evolve-process.js";

const SKILL = ".claude/skills/demo-work/SKILL.md";
const SUITE = join(REPO_ROOT, "tasks/demo-implementation.yaml");
const scratch = mkdtempSync(join(tmpdir(), "evolve-proposer-int-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));


/** A git repo root holding the demo's incumbent skills, committed. */
const repoRoot = (name: string): string => commitIncumbentSkills(join(scratch, name));
const evolve = (args: readonly string[]): Promise<EvolveOutcome> => runEvolve(args);

describe("wfbench evolve, offline, proposer path", () => {
  let root: string;
  let out: string;
  let result: EvolveOutcome;
  beforeAll(async () => {
    root = repoRoot("proposed");
    out = join(scratch, "out-proposed");
    result = await evolve(["--tasks", SUITE, "--proposer-script", "tasks/demo/scripted-proposer.yaml", "--runs", "3", "--workers", "2", "--apply", "--repo-root", root, "--out-root", out]);
  }, 1_500_000);

  it("promotes the generation-0 proposal and applies the work-v2 bytes to the repo root", () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/PROMOTED: generation 0/u);
    expect(readFileSync(join(out, "gen-0/proposer/overlay", SKILL)).equals(readFileSync(join(REPO_ROOT, "tasks/demo/overlays/work-v2", SKILL)))).toBe(true);
    expect(readFileSync(join(root, SKILL)).equals(readFileSync(join(REPO_ROOT, "tasks/demo/overlays/work-v2", SKILL)))).toBe(true);
  });

  it("keeps the proposer's record and proposal owner-only", () => {
    for (const file of ["proposer-session.json", "proposal.md"]) {
      expect(statSync(join(out, "gen-0/proposer", file)).mode & 0o777, file).toBe(0o600);
    }
  });

  it("records the candidate as model-proposed in promotion.json", () => {
    const promotion = JSON.parse(readFileSync(join(out, "gen-0/bench/promotion.json"), "utf8")) as Record<string, unknown>;
    expect(promotion).toMatchObject({ candidate_origin: "model-proposer", proposer_model: "claude-sonnet-4-5" });
  });
});

describe("wfbench evolve, offline, keep_incumbent feeds the next generation", () => {
  const fixture = join(REPO_ROOT, "apps/evolve/test/fixtures/proposer-feedback/scripted-proposer.yaml");
  const bytes = (name: string): Buffer => readFileSync(join(REPO_ROOT, "tasks/demo/overlays", name, SKILL));
  let root: string;
  let out: string;
  let result: EvolveOutcome;
  beforeAll(async () => {
    root = repoRoot("feedback");
    out = join(scratch, "out-feedback");
    result = await evolve(["--tasks", SUITE, "--proposer-script", fixture, "--generations", "2", "--runs", "3", "--workers", "2", "--apply", "--repo-root", root, "--out-root", out]);
  }, 2_400_000);

  it("keeps the incumbent for generation 0's work-v3 proposal", () => {
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(out, "gen-0/proposer/overlay", SKILL)).equals(bytes("work-v3"))).toBe(true);
    expect(result.stdout).toMatch(/candidate_workflow: keep_incumbent/u);
  });

  it("gives generation 1's proposer gen-0's proposal and bench rows, so it writes work-v2, which promotes", () => {
    // The fixture writes work-v2 only when /evidence held prior-proposal.md and a nonempty selected-rows.json.
    expect(readFileSync(join(out, "gen-1/proposer/overlay", SKILL)).equals(bytes("work-v2"))).toBe(true);
    expect(result.stdout).toMatch(/PROMOTED: generation 1/u);
    expect(readFileSync(join(root, SKILL)).equals(bytes("work-v2"))).toBe(true);
  });
});

describe("wfbench evolve, offline, a seed's proposal feeds generation 0", () => {
  // Runs after the feedback suite above (vitest keeps a file's order): its gen-0/bench is this run's seed, and the
  // proposal beside it (gen-0/proposer/proposal.md, §9.1's `<seed>/../proposal.md`) is the prior proposal.
  const fixture = join(REPO_ROOT, "apps/evolve/test/fixtures/proposer-feedback/scripted-proposer.yaml");
  let root: string;
  let out: string;
  let result: EvolveOutcome;
  beforeAll(async () => {
    root = repoRoot("seeded");
    out = join(scratch, "out-seeded");
    result = await evolve(["--tasks", SUITE, "--proposer-script", fixture, "--seed-results", join(scratch, "out-feedback/gen-0/bench"), "--runs", "3", "--workers", "2", "--apply", "--repo-root", root, "--out-root", out]);
  }, 1_500_000);

  it("stages the seed's proposal as prior-proposal.md, so generation 0 writes work-v2, which promotes", () => {
    expect(result.code, result.stderr).toBe(0);
    // The fixture writes work-v2 only when /evidence held prior-proposal.md (and seed rows); work-v3 otherwise.
    expect(readFileSync(join(out, "gen-0/proposer/overlay", SKILL)).equals(readFileSync(join(REPO_ROOT, "tasks/demo/overlays/work-v2", SKILL)))).toBe(true);
    expect(result.stdout).toMatch(/PROMOTED: generation 0/u);
  });
});
