// Issue 15, task assets: a task whose visible verify and hidden oracle both run vitest from a read-only dependency
// tree. The dependency is a real vitest install (copied from this workspace's node_modules into the task repository's
// untracked node_modules), captured once as a frozen snapshot, bound read-only at /workspace/node_modules with a tmpfs
// over its .vite-temp (where vite bundles a TypeScript config), and an untracked sandbox_copy file is copied into the
// cell. Through the real runner; judged from results.jsonl only. Two hostile declarations are refused before any cell.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const base = mkdtempSync(join(tmpdir(), "wfbench-task-deps-"));
const MARKER = "DEPS-7f3a";
const VERIFY = "./node_modules/.bin/vitest run --config vitest.config.mts";
const ORACLE = './node_modules/.bin/vitest run --config "$WFBENCH_ORACLE_ROOT/vitest.config.mts" "$WFBENCH_ORACLE_ROOT/double.oracle.test.ts"';

/** vitest and everything it imports at run time (dependencies and optional ones, not peers), from the workspace's node_modules. */
function vitestClosure(): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    const manifest = join(REPO_ROOT, "node_modules", name, "package.json");
    if (seen.has(name) || !existsSync(manifest)) return;
    seen.add(name);
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep);
  };
  visit("vitest");
  return [...seen];
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false", ...args], { cwd, stdio: "ignore" });
}

function makeRepo(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "task source");
}

const SOURCE_FILES: Record<string, string> = {
  ".gitignore": "node_modules/\nvendor/\n",
  "package.json": '{ "name": "deps-task", "private": true, "type": "module" }\n',
  "src/math.js": "/** Sum of a list of numbers. */\nexport function sum(values) {\n  return values.reduce((a, b) => a + b, 0);\n}\n",
  // A TypeScript config: vite bundles it into node_modules/.vite-temp before loading it, which a read-only
  // node_modules refuses (EROFS) unless the tmpfs overlay is there.
  "vitest.config.mts": 'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { include: ["test/**/*.test.ts"], environment: "node" } });\n',
  "test/math.test.ts": [
    'import { readFileSync } from "node:fs";',
    'import { expect, it } from "vitest";',
    'import { double, sum } from "../src/math.js";',
    // vendor/ is untracked: only the task's sandbox_copy puts it in the cell.
    'const table = JSON.parse(readFileSync(new URL("../vendor/table.json", import.meta.url), "utf8")) as [number, number][];',
    'it("sums", () => expect(sum([1, 2, 3])).toBe(6));',
    'it("doubles every row of the copied table", () => { for (const [x, y] of table) expect(double(x)).toBe(y); });',
    "",
  ].join("\n"),
};

const ORACLE_FILES: Record<string, string> = {
  "deps/vitest.config.mts": [
    'import { defineConfig } from "vitest/config";',
    "// Pinned with --config: nothing the candidate writes is loaded as config.",
    'export default defineConfig({ test: { root: process.cwd(), include: [".wfbench-oracle-*/*.oracle.test.ts"], environment: "node", globals: false, setupFiles: [], passWithNoTests: false, testTimeout: 120000 } });',
    "",
  ].join("\n"),
  "deps/double.oracle.test.ts": [
    'import { expect, it } from "vitest";',
    'import { double } from "../src/math.js";',
    'it("doubles negatives and zero", () => { expect(double(-4)).toBe(-8); expect(double(0)).toBe(0); });',
    "",
  ].join("\n"),
};

const SCRIPT = `version: 1
trajectories:
  - name: deps-baseline
    match: { contains: "${MARKER}", in: first_user }
    turns:
      - content:
          - { type: tool_use, name: Read, input: { file_path: /workspace/src/math.js } }
        usage: { input_tokens: 900, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
      - content:
          - type: tool_use
            name: Write
            input:
              file_path: /workspace/src/math.js
              content: "/** Sum of a list of numbers. */\\nexport function sum(values) {\\n  return values.reduce((a, b) => a + b, 0);\\n}\\n\\n/** Twice x. */\\nexport function double(x) {\\n  return 2 * x;\\n}\\n"
        usage: { input_tokens: 1000, output_tokens: 60, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
      - content:
          - { type: tool_use, name: Bash, input: { command: "${VERIFY}", description: "Run the tests" } }
        usage: { input_tokens: 1200, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
      - content:
          - { type: text, text: "Added double to src/math.js." }
        usage: { input_tokens: 1300, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
`;

function suite(repo: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    skills: { plan: "demo-plan", work: "demo-work" },
    tasks: [
      {
        id: "deps-double",
        class: "trivial",
        repo,
        prompt: `${MARKER}: Add a \`double(x)\` export to src/math.js that returns twice its argument.`,
        verify: VERIFY,
        sandbox_copy: ["vendor/table.json"],
        sandbox_dependencies: [{ source: "node_modules", target: "node_modules" }],
        oracle: { command: ORACLE, files: [
          { source: "deps/vitest.config.mts", target: "vitest.config.mts" },
          { source: "deps/double.oracle.test.ts", target: "double.oracle.test.ts" },
        ] },
        ...overrides,
      },
    ],
  });
}

const repo = join(base, "repo");
const oracles = join(base, "oracles");
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

beforeAll(async () => {
  makeRepo(repo, SOURCE_FILES);
  for (const name of vitestClosure()) cpSync(join(REPO_ROOT, "node_modules", name), join(repo, "node_modules", name), { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(repo, "node_modules/.bin"));
  symlinkSync("../vitest/vitest.mjs", join(repo, "node_modules/.bin/vitest"));
  mkdirSync(join(repo, "vendor"));
  writeFileSync(join(repo, "vendor/table.json"), "[[1, 2], [21, 42]]\n");
  for (const [rel, text] of Object.entries(ORACLE_FILES)) {
    mkdirSync(dirname(join(oracles, rel)), { recursive: true });
    writeFileSync(join(oracles, rel), text);
  }
  writeFileSync(join(base, "script.yaml"), SCRIPT);
  writeFileSync(join(base, "suite.yaml"), suite(repo));
  if (tools.skip) return;
  result = await runRunner(["--tasks", join(base, "suite.yaml"), "--script", join(base, "script.yaml"), "--oracles", oracles, "--arms", "baseline", "--out", out]);
  rows = readResultRows(out);
}, 300_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(tools.skip)("a task whose verify and oracle run vitest from a read-only dependency tree", () => {
  it("passes the visible verify and the hidden oracle, with the asset digests in the row", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows).toHaveLength(1);
    const row = rows[0] ?? {};
    expect(row, JSON.stringify(row, null, 2)).toMatchObject({ task: "deps-double", arm: "baseline", ok: true, authored_tests_passed: true, resolved: true });
    for (const field of ["task_asset_snapshot_digest", "task_asset_manifest_digest", "sandbox_dependency_content_digest", "sandbox_dependency_manifest_digest"]) {
      expect(row[field], field).toMatch(/^[0-9a-f]{64}$/u);
    }
    // The copied table and the dependency never become part of the candidate's diff.
    const patch = readFileSync(join(out, String(row["patch_artifact"])), "utf8");
    expect(patch).toContain("export function double");
    expect(patch).not.toMatch(/node_modules|vendor\/table\.json/u);
  });

  for (const [label, link, name] of [
    ["leaves it", "../../../../etc", "escaping"],
    ["dangles", "missing.js", "dangling"],
  ] as const) {
    it(`refuses a dependency whose symlink ${label}, naming the field, before any cell`, async () => {
      const evil = join(base, name);
      makeRepo(evil, SOURCE_FILES);
      mkdirSync(join(evil, "node_modules/pkg"), { recursive: true });
      writeFileSync(join(evil, "node_modules/pkg/index.js"), "export {};\n");
      symlinkSync(link, join(evil, "node_modules/pkg/link"));
      mkdirSync(join(evil, "vendor"));
      writeFileSync(join(evil, "vendor/table.json"), "[]\n");
      writeFileSync(join(base, `${name}.yaml`), suite(evil));
      const refused = await runRunner(["--tasks", join(base, `${name}.yaml`), "--script", join(base, "script.yaml"), "--oracles", oracles, "--arms", "baseline", "--out", join(base, `${name}-out`)]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/sandbox_dependencies\[0\]\.source.*pkg\/link dangles or leaves the dependency/u);
      expect(existsSync(join(base, `${name}-out`, "results.jsonl"))).toBe(false);
    });
  }

  it("refuses a symlink inside a sandbox_copy tree before any cell", async () => {
    const linked = join(base, "copy-link");
    makeRepo(linked, SOURCE_FILES);
    mkdirSync(join(linked, "node_modules"));
    mkdirSync(join(linked, "vendor"));
    symlinkSync("/etc/passwd", join(linked, "vendor/table.json"));
    writeFileSync(join(base, "copy-link.yaml"), suite(linked, { sandbox_copy: ["vendor"] }));
    const refused = await runRunner(["--tasks", join(base, "copy-link.yaml"), "--script", join(base, "script.yaml"), "--oracles", oracles, "--arms", "baseline", "--out", join(base, "copy-link-out")]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/sandbox_copy\[0\].*vendor\/table\.json contains a symlink/u);
  });

  it("refuses a prebuilt index asset (§7.3) before any cell", async () => {
    writeFileSync(join(base, "graph.yaml"), suite(repo, { sandbox_copy: [".gitnexus/lbug"] }));
    const refused = await runRunner(["--tasks", join(base, "graph.yaml"), "--script", join(base, "script.yaml"), "--oracles", oracles, "--arms", "baseline", "--out", join(base, "graph-out")]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/sandbox_copy/u);
    expect(refused.stderr).toMatch(/\.gitnexus/u);
  });
});
