import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What leaves the repo is the built tarball, not src: this test packs promotion-gate and its runtime @wfbench
// dependencies, installs them into a project outside the workspace, and uses them the way a consumer would — plain
// node without the @wfbench/source condition, and strict tsc against the shipped declarations only.
const here = path.dirname(fileURLToPath(import.meta.url));
const workspaceRoot = path.resolve(here, "../../..");
const publishable = ["digest", "durable-fs", "pycompat", "result-row", "promotion-gate"] as const;
const tscBin = path.join(workspaceRoot, "node_modules/typescript/bin/tsc");
// Nx and npm inherit this process's env; strip what would point them back at the workspace or its conditions.
const childEnv: NodeJS.ProcessEnv = { ...process.env, NX_DAEMON: "false", NX_NO_CLOUD: "true", NX_TUI: "false", FORCE_COLOR: "0" };
delete childEnv["NODE_OPTIONS"];
for (const key of Object.keys(childEnv)) if (key.startsWith("npm_")) delete childEnv[key];

let scratch = "";
let consumer = "";

function run(command: string, args: readonly string[], cwd: string): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd, env: childEnv, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

function mustRun(command: string, args: readonly string[], cwd: string): string {
  const result = run(command, args, cwd);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${result.status}:\n${result.output}`);
  return result.output;
}

/** A row the gate reads; the candidate arm spends `cost` where the incumbent spends 1.0. */
const rowsSource = `
const row = (task, arm, cost) => ({
  task, arm, class: "trivial", error_kind: null, resolved: true, cost_usd: cost, wire_cost_usd: cost,
  input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, duration_s: 1,
  num_turns: 1, diff_files: 1, diff_insertions: 1, diff_deletions: 0, transcript_missing: false,
});
const rows = (cost) => ["a", "b"].flatMap((task) => [0, 1, 2].flatMap(() => [row(task, "workflow", 1.0), row(task, "candidate_workflow", cost)]));
`;

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "wfbench-pack-"));
  mustRun("npx", ["nx", "run-many", "-t", "build", "--outputStyle=static", `--projects=${publishable.join(",")}`], workspaceRoot);
  const tarballs = path.join(scratch, "tarballs");
  fs.mkdirSync(tarballs);
  for (const name of publishable) {
    execFileSync("npm", ["pack", "--silent", "--pack-destination", tarballs], { cwd: path.join(workspaceRoot, "packages", name), env: childEnv });
  }
  consumer = path.join(scratch, "consumer");
  fs.mkdirSync(consumer);
  fs.writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const files = fs.readdirSync(tarballs).map((file) => path.join(tarballs, file));
  // The public API names Buffer, so a typed consumer needs node's types: the workspace's exact @types/node.
  const nodeTypes = (JSON.parse(fs.readFileSync(path.join(workspaceRoot, "node_modules/@types/node/package.json"), "utf8")) as { version: string }).version;
  const install = ["install", "--no-audit", "--no-fund", "--no-package-lock", ...files, `@types/node@${nodeTypes}`];
  // Third-party dependencies (zod, fast-json-stable-stringify) come from the npm cache the workspace install filled;
  // only a cache that lacks one falls back to the registry.
  const offline = run("npm", [...install, "--offline"], consumer);
  if (offline.status !== 0) mustRun("npm", [...install, "--prefer-offline"], consumer);
}, 600_000);

afterAll(() => {
  if (scratch !== "") fs.rmSync(scratch, { recursive: true, force: true });
});

describe("the packed @wfbench/promotion-gate", () => {
  it("ships built files and README only, outside the workspace", () => {
    expect(path.relative(workspaceRoot, consumer).startsWith("..")).toBe(true);
    for (const name of publishable) {
      const installed = path.join(consumer, "node_modules/@wfbench", name);
      expect(fs.lstatSync(installed).isSymbolicLink(), `${name} must be an installed copy, not a workspace link`).toBe(false);
      expect(fs.readdirSync(installed).sort()).toEqual(["README.md", "dist", "package.json"]);
      expect(fs.existsSync(path.join(installed, "dist/index.js"))).toBe(true);
      expect(fs.existsSync(path.join(installed, "dist/index.d.ts"))).toBe(true);
    }
  });

  it("decides a gate under plain node, without the source condition", () => {
    fs.writeFileSync(
      path.join(consumer, "decide.mjs"),
      `import { aggregateByTaskArm, buildCandidatePolicy, evaluateImplementationCandidate } from "@wfbench/promotion-gate";
${rowsSource}
const policy = buildCandidatePolicy("candidate_workflow", { metric: "cost_usd", minRuns: 3 });
const decide = (cost) => evaluateImplementationCandidate({
  results: aggregateByTaskArm(rows(cost)), incumbentArm: "workflow", candidateArm: "candidate_workflow", policy, model: "claude-x",
});
const cheaper = decide(0.9);
const marginal = decide(0.99);
console.log(JSON.stringify({ cheaper: [cheaper.decision, cheaper.median_improvement_pct], marginal: [marginal.decision, marginal.median_improvement_pct] }));
`,
    );
    const out = mustRun(process.execPath, ["decide.mjs"], consumer).trim().split("\n")[0] ?? "";
    expect(JSON.parse(out)).toEqual({ cheaper: ["promote", 10], marginal: ["keep_incumbent", 1] });
  });

  it("type-checks a strict consumer against the shipped .d.ts and rejects a wrong call", () => {
    fs.writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, module: "nodenext",
          moduleResolution: "nodenext", target: "es2022", lib: ["es2023"], types: ["node"], noEmit: true, skipLibCheck: false,
        },
        include: ["*.ts"],
      }),
    );
    const good = `import { buildCandidatePolicy, evaluateImplementationCandidate, type AggregatedResults, type ImplementationDecision, type ImplementationPolicy } from "@wfbench/promotion-gate";
export function decide(results: AggregatedResults): ImplementationDecision["decision"] {
  const policy = buildCandidatePolicy("candidate_workflow") as ImplementationPolicy;
  return evaluateImplementationCandidate({ results, incumbentArm: "workflow", candidateArm: "candidate_workflow", policy, model: "claude-x" }).decision;
}
`;
    fs.writeFileSync(path.join(consumer, "good.ts"), good);
    // A metric outside PROMOTION_METRICS and a missing model: both must be caught by the shipped types. One tsc run
    // checks both files (a full lib check of @types/node is the slow part); the errors must all be bad.ts's.
    fs.writeFileSync(
      path.join(consumer, "bad.ts"),
      `import { evaluateImplementationCandidate, type AggregatedResults, type ImplementationPolicy } from "@wfbench/promotion-gate";
declare const results: AggregatedResults;
declare const policy: ImplementationPolicy;
evaluateImplementationCandidate({ results, incumbentArm: "workflow", candidateArm: "candidate_workflow", policy: { ...policy, metric: "lines_of_code" } });
`,
    );
    const refused = run(process.execPath, [tscBin, "-p", "tsconfig.json"], consumer);
    const errorLines = refused.output.split("\n").filter((line) => /error TS\d+/.test(line));
    expect(errorLines.length).toBeGreaterThan(0);
    expect(errorLines.filter((line) => !line.startsWith("bad.ts(4,")), refused.output).toEqual([]);
    expect(refused.status).not.toBe(0);
  });
});
