// The CE comparator arms and the host-unsafe review mode through the whole runner (real CLI, bwrap, git, gateway,
// scripted model). Everything is judged from host evidence: the rows, the parent-captured transcripts, the scripted
// model's request log and the report; the plugin digest is recomputed here from the fixture's bytes.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "@wfbench/digest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURES = fileURLToPath(new URL("./fixtures", import.meta.url));
const SUITE = join(FIXTURES, "ce-arms/suite.yaml");
const PLUGIN = join(REPO_ROOT, "packages/plugin-snapshot/fixtures/compound-engineering");
const VERSION = "3.23.1";
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-ce-arms-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function sweepArgs(out: string, script: string, ...extra: string[]): string[] {
  return ["--tasks", SUITE, "--script", join(FIXTURES, script), "--oracles", join(REPO_ROOT, "oracles"), "--out", out, ...extra];
}

/** The §4.5 CE manifest digest, recomputed from the plugin's own files (only what §6.9 copies). */
function expectedPluginDigest(root: string): string {
  const files: { path: string; sha256: string; size: number; executable: boolean }[] = [];
  const walk = (rel: string): void => {
    const abs = join(root, rel);
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs)) walk(rel === "" ? name : `${rel}/${name}`);
      return;
    }
    const bytes = readFileSync(abs);
    files.push({ path: rel, sha256: sha256Hex(bytes), size: bytes.length, executable: (statSync(abs).mode & 0o111) !== 0 });
  };
  for (const rel of [".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "skills", "scripts", "assets"]) if (existsSync(join(root, rel))) walk(rel);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return sha256Hex(canonicalJson({ files, schema_version: 1 }));
}

function transcriptOf(out: string, row: Record<string, unknown>, index = 0): string {
  const artifacts = row["transcript_artifacts"] as { path: string }[];
  return readFileSync(join(out, (artifacts[index] as { path: string }).path), "utf8");
}

function trajectories(out: string): string[] {
  return readFileSync(join(out, "scripted-model-requests.jsonl"), "utf8").trimEnd().split("\n").map((line) => String((JSON.parse(line) as { trajectory: unknown }).trajectory));
}

describe("CE comparator arms", () => {
  const out = join(base, "ce");
  let result: RunnerResult = { code: null, stdout: "", stderr: "" };
  let rows: Record<string, unknown>[] = [];
  const byArm = (arm: string): Record<string, unknown> => rows.find((row) => row["arm"] === arm) ?? {};

  beforeAll(async () => {
    if (tools.skip) return;
    result = await runRunner(sweepArgs(out, "ce-arms/script.yaml", "--arms", "ce_workflow", "ce_workflow_direct", "ce_review", "review", "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", VERSION));
    rows = readResultRows(out);
  }, 180_000);

  it.skipIf(tools.skip)("run every CE arm on its kind of task and resolve it", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows.map((row) => `${String(row["task"])}/${String(row["arm"])}`)).toEqual(["ce-clamp/ce_workflow", "ce-clamp/ce_workflow_direct", "ce-review-median/ce_review", "ce-review-median/review"]);
    for (const row of rows) expect(row, String(row["arm"])).toMatchObject({ ok: true, error_kind: null, resolved: true, skill_invoked: true, sandbox_backend: "bwrap" });
    expect(byArm("ce_workflow")["session_ids"]).toHaveLength(2);
    expect(byArm("ce_review")["review_weighted_f1"]).toBe(1);
  });

  it.skipIf(tools.skip)("record the plugin version and the digest of the exact bytes in every CE row, and in no other", () => {
    const digest = expectedPluginDigest(PLUGIN);
    for (const arm of ["ce_workflow", "ce_workflow_direct", "ce_review"]) {
      // CE arms evaluate no repository skill: their skills are the plugin's, pinned by the digest instead.
      expect(byArm(arm), arm).toMatchObject({ ce_plugin_version: VERSION, ce_plugin_manifest_digest: digest, skill_digest: null });
    }
    expect(byArm("review")["ce_plugin_version"]).toBeUndefined();
    expect(byArm("review")["ce_plugin_manifest_digest"]).toBeUndefined();
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain(`- Compound Engineering plugin: \`${VERSION}\` (\`${digest}\`)`);
  });

  it.skipIf(tools.skip)("invoke each CE skill from the read-only plugin mount (parent-captured stream)", () => {
    const expected: [string, number, string][] = [
      ["ce_workflow", 0, "ce-plan"],
      ["ce_workflow", 1, "ce-work"],
      ["ce_workflow_direct", 0, "ce-work"],
      ["ce_review", 0, "ce-code-review"],
    ];
    for (const [arm, index, skill] of expected) {
      const transcript = transcriptOf(out, byArm(arm), index);
      const init = JSON.parse(transcript.split("\n")[0] ?? "{}") as { subtype?: string; plugins?: { name: string; path: string; version?: string }[] };
      expect(init.subtype).toBe("init");
      expect(init.plugins).toContainEqual(expect.objectContaining({ name: "compound-engineering", path: "/opt/compound-engineering-plugin", version: VERSION }));
      expect(transcript).toContain(`"skill":"compound-engineering:${skill}"`);
      expect(transcript).toContain(`Base directory for this skill: /opt/compound-engineering-plugin/skills/${skill}`);
    }
    // The GitNexus reviewer still loads its own skill from the workspace, and is offered no plugin.
    const review = transcriptOf(out, byArm("review"));
    expect(review).toContain("Base directory for this skill: /workspace/.claude/skills/demo-review");
    expect(review).not.toContain("/opt/compound-engineering-plugin");
  });

  it.skipIf(tools.skip)("keep the plugin mount read-only: a session's write to a skill file fails", () => {
    const transcript = transcriptOf(out, byArm("ce_workflow_direct"));
    // The CLI let the command run (a plain node call); the kernel refused the chmod: the mount itself is read-only.
    expect(transcript).toContain('"content":"PLUGIN-TAMPER-EROFS"');
    expect(transcript).not.toContain('"content":"PLUGIN-TAMPER-WROTE"');
    expect(readFileSync(join(PLUGIN, "skills/ce-work/SKILL.md"), "utf8")).not.toContain("skip every check");
  });

  it.skipIf(tools.skip)("pair ce_review with the GitNexus reviewer in report-stats.json", () => {
    const stats = JSON.parse(readFileSync(join(out, "report-stats.json"), "utf8")) as { comparisons: { arm: string; reference: string; relation: string; task: string | null }[] };
    expect(stats.comparisons).toContainEqual(expect.objectContaining({ arm: "review", reference: "ce_review", relation: "ce-comparator", task: "ce-review-median" }));
  });
});

describe("a review overlay measured against the CE reviewer", () => {
  const out = join(base, "overlay");
  let result: RunnerResult = { code: null, stdout: "", stderr: "" };

  beforeAll(async () => {
    if (tools.skip) return;
    // No --arms: the overlay requires `review candidate_review`, and the CE flags put ce_review first (reference §2.1).
    result = await runRunner(sweepArgs(out, "ce-arms/script.yaml", "--candidate-overlay", join(REPO_ROOT, "tasks/demo/overlays/review-v2"), "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", VERSION));
  }, 120_000);

  it.skipIf(tools.skip)("runs ce_review review candidate_review and records the plugin's provenance in promotion.json", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(readResultRows(out).map((row) => row["arm"])).toEqual(["ce_review", "review", "candidate_review"]);
    const promotion = JSON.parse(readFileSync(join(out, "promotion.json"), "utf8")) as Record<string, unknown>;
    expect(promotion["ce_plugin"]).toEqual({ name: "compound-engineering", version: VERSION, manifest_schema_version: 1, manifest_digest: expectedPluginDigest(PLUGIN), file_count: 9, total_bytes: expect.any(Number) });
    expect(promotion["required_candidate_arms"]).toEqual(["candidate_review"]);
    const stats = JSON.parse(readFileSync(join(out, "report-stats.json"), "utf8")) as { comparisons: { arm: string; reference: string; task: string | null }[] };
    const pairs = stats.comparisons.filter((c) => c.task === null).map((c) => `${c.arm}~${c.reference}`);
    expect(pairs).toEqual(expect.arrayContaining(["review~ce_review", "candidate_review~review", "candidate_review~ce_review"]));
  });
});

describe("CE flags and plugin refusals before any paid work", () => {
  function pluginCopy(name: string, mutate: (root: string) => void): string {
    const root = join(base, "plugins", name);
    mkdirSync(join(base, "plugins"), { recursive: true });
    cpSync(PLUGIN, root, { recursive: true });
    mutate(root);
    return root;
  }

  async function refused(name: string, extra: string[]): Promise<{ result: RunnerResult; out: string }> {
    const out = join(base, `refused-${name}`);
    const result = await runRunner(sweepArgs(out, "ce-arms/script.yaml", ...extra));
    return { result, out };
  }

  const noPaidWork = (out: string): void => {
    expect(existsSync(join(out, "results.jsonl")), "no results were written").toBe(false);
    expect(existsSync(join(out, "scripted-model-requests.jsonl")), "the model was never asked").toBe(false);
  };

  it.skipIf(tools.skip)("refuse a CE arm without --ce-plugin-dir, naming the flag", async () => {
    const { result, out } = await refused("no-dir", ["--arms", "ce_review"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--arms ce_review needs --ce-plugin-dir <dir>");
    expect(existsSync(out)).toBe(false);
  });

  it.skipIf(tools.skip)("refuse a CE arm without --ce-plugin-version, and a version that is not exact", async () => {
    const missing = await refused("no-version", ["--arms", "ce_workflow_direct", "--ce-plugin-dir", PLUGIN]);
    expect(missing.result.code).toBe(2);
    expect(missing.result.stderr).toContain("--ce-plugin-version is required with the CE plugin");
    const range = await refused("range-version", ["--arms", "ce_workflow_direct", "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", "^3.23"]);
    expect(range.result.code).toBe(2);
    expect(range.result.stderr).toContain('--ce-plugin-version "^3.23" is not an exact semantic version');
  });

  it.skipIf(tools.skip)("refuse CE flags with no CE arm", async () => {
    const { result } = await refused("no-ce-arm", ["--arms", "review", "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", VERSION]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--ce-plugin-dir is only used by the ce_* arms");
  });

  it.skipIf(tools.skip)("refuse a plugin whose manifest declares another version, naming the rule", async () => {
    const { result, out } = await refused("wrong-version", ["--arms", "ce_review", "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", "3.23.2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("CE plugin refused (wrong-version) at .claude-plugin/plugin.json");
    noPaidWork(out);
  });

  it.skipIf(tools.skip)("refuse a plugin with a symlink, a secret-like file or an oversize file, naming the rule and the path", async () => {
    const cases: [string, (root: string) => void, string][] = [
      ["symlink", (root) => symlinkSync("/etc/passwd", join(root, "skills/ce-plan/references/passwd.md")), "CE plugin refused (symlink) at skills/ce-plan/references/passwd.md"],
      ["secret", (root) => writeFileSync(join(root, "scripts/github-token.txt"), "ghp_not_a_real_token\n"), "CE plugin refused (secret-like) at scripts/github-token.txt"],
      ["oversize", (root) => writeFileSync(join(root, "assets/huge.bin"), Buffer.alloc(2 * 1024 * 1024 + 1)), "CE plugin refused (file-too-large) at assets/huge.bin"],
    ];
    for (const [name, mutate, message] of cases) {
      const plugin = pluginCopy(name, mutate);
      const { result, out } = await refused(`plugin-${name}`, ["--arms", "ce_review", "--ce-plugin-dir", plugin, "--ce-plugin-version", VERSION]);
      expect(result.code, `${name}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(message);
      noPaidWork(out);
    }
  }, 120_000);
});

describe("host-unsafe review mode", () => {
  it.skipIf(tools.skip)("refuse --unsafe-no-bwrap under CI, naming the rule", async () => {
    const out = join(base, "unsafe-ci");
    const result = await runRunner(sweepArgs(out, "ce-host-unsafe/script.yaml", "--arms", "review", "--unsafe-no-bwrap"), { env: { CI: "true" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--unsafe-no-bwrap is forbidden when CI is set (CI=true)");
    expect(existsSync(out)).toBe(false);
  });

  it.skipIf(tools.skip)("refuse UNSAFE_NO_BWRAP=1 with arms that can apply (and with the default arms)", async () => {
    const explicit = await runRunner(sweepArgs(join(base, "unsafe-arms"), "ce-host-unsafe/script.yaml", "--arms", "workflow", "review"), { env: { UNSAFE_NO_BWRAP: "1" } });
    expect(explicit.code).toBe(2);
    expect(explicit.stderr).toContain("UNSAFE_NO_BWRAP=1 runs review arms only (ce_review, review, candidate_review), never workflow");
    const defaults = await runRunner(sweepArgs(join(base, "unsafe-default"), "ce-host-unsafe/script.yaml", "--unsafe-no-bwrap"));
    expect(defaults.code).toBe(2);
    expect(defaults.stderr).toContain("--unsafe-no-bwrap runs review arms only (ce_review, review, candidate_review), never workflow, workflow_direct, baseline");
  });

  describe("a review sweep on the host", () => {
    const out = join(base, "unsafe");
    let result: RunnerResult = { code: null, stdout: "", stderr: "" };
    let rows: Record<string, unknown>[] = [];

    beforeAll(async () => {
      if (tools.skip) return;
      result = await runRunner(sweepArgs(out, "ce-host-unsafe/script.yaml", "--arms", "ce_review", "review", "--unsafe-no-bwrap", "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", VERSION));
      rows = readResultRows(out);
    }, 120_000);

    it.skipIf(tools.skip)("say host-unsafe in every row, warn on stderr and carry the banner in report.md", () => {
      expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
      expect(rows.map((row) => row["arm"])).toEqual(["ce_review", "review"]);
      for (const row of rows) expect(row).toMatchObject({ sandbox_backend: "host-unsafe", ok: true, error_kind: null, resolved: true, skill_invoked: true, review_weighted_f1: 1 });
      expect(result.stderr).toContain("This is NOT a security boundary");
      const report = readFileSync(join(out, "report.md"), "utf8");
      expect(report).toContain("**HOST-UNSAFE: no security boundary.**");
      expect(report.indexOf("HOST-UNSAFE")).toBeLessThan(report.indexOf("| task | class | arm |"));
    });

    it.skipIf(tools.skip)("write-lock the whole clone while the review session runs, and say host-unsafe in report.html too", () => {
      const ce = transcriptOf(out, rows[0] ?? {});
      expect(ce).toContain("LOCK 500 .\\nLOCK 500 src\\nLOCK 444 src/math.js");
      const html = readFileSync(join(out, "report.html"), "utf8");
      expect(html).toContain("HOST-UNSAFE, no security boundary");
      expect(html).toContain("Compound Engineering plugin");
    });

    it.skipIf(tools.skip)("hand the model host paths: the prompt's sandbox paths were rewritten, the plugin loaded from its host snapshot", () => {
      // Only a review contract naming a host path (never /review-output) matches these trajectories.
      expect(new Set(trajectories(out))).toEqual(new Set(["host-ce-review", "host-gitnexus-review"]));
      const ce = transcriptOf(out, rows[0] ?? {});
      expect(ce).toMatch(/Base directory for this skill: \/[^"\\]*\/ce-plugin\/skills\/ce-code-review/u);
      expect(ce).not.toContain("/opt/compound-engineering-plugin");
    });

  });
});
