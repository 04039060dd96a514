// Benchmark (issue 5): per-cell sanitize vs template once + materializeCell, vs raw `cp -a --reflink=auto`.
// Run: `nx run clone-sanitizer:bench` (or `npx tsx bench/template-vs-clone.ts` from the package directory).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createHostGitRunner } from "../src/host-git-runner.js";
import { materializeCell } from "../src/materialize-cell.js";
import { prepareTemplate } from "../src/prepare-template.js";
import { removeTree } from "@wfbench/durable-fs";

const COMMITS = 1_000;
const FILES = 2_000;
const CELLS = 9;
const HIDDEN = ["eval/workflow_bench"];

function generateRepo(root: string): { repo: string; sha: string } {
  // fast-import keeps generation deterministic and quick: fixed identities, dates and contents.
  const repo = join(root, "source");
  mkdirSync(repo);
  const env = { PATH: "/usr/bin:/bin", HOME: root, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  execFileSync("git", ["init", "-q", "-b", "main", repo], { env });
  const lines: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let c = 0; c < COMMITS; c += 1) {
    const when = 946_684_800 + c * 60;
    lines.push(`commit refs/heads/main\nmark :${c + 1}\ncommitter Bench <bench@example.invalid> ${when} +0000\n${data(`commit ${c}`)}`);
    if (c > 0) lines.push(`from :${c}\n`);
    if (c === 0) {
      for (let f = 0; f < FILES; f += 1) {
        lines.push(`M 100644 inline src/dir${f % 50}/file${f}.ts\n${data(`export const v${f} = ${f};\n// ${"x".repeat(200)}\n`)}`);
      }
      lines.push(`M 100644 inline eval/workflow_bench/oracle.test.ts\n${data("// hidden oracle\n")}`);
    } else {
      const f = (c * 7919) % FILES;
      lines.push(`M 100644 inline src/dir${f % 50}/file${f}.ts\n${data(`export const v${f} = ${c};\n// ${"y".repeat(200)}\n`)}`);
    }
  }
  execFileSync("git", ["fast-import", "--quiet"], { cwd: repo, env, input: lines.join("") });
  execFileSync("git", ["checkout", "-q", "main"], { cwd: repo, env });
  const sha = execFileSync("git", ["rev-parse", `main~${Math.floor(COMMITS / 10)}`], { cwd: repo, env, encoding: "utf8" }).trim();
  return { repo, sha };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "wfbench-bench-"));
  const runner = createHostGitRunner();
  try {
    const t0 = performance.now();
    const { repo, sha } = generateRepo(root);
    const genMs = performance.now() - t0;

    // (a) the original strategy: a full clone + sanitize + verify (repack, prune, fsck) for every cell.
    const perCell: number[] = [];
    for (let i = 0; i < CELLS; i += 1) {
      const start = performance.now();
      const built = await prepareTemplate({ repo, sha, hiddenPaths: HIDDEN, neutralize: [] }, { runner, parentDir: root });
      perCell.push(performance.now() - start);
      if (!built.ok) throw new Error(JSON.stringify(built.error));
      await removeTree(built.value.path);
    }

    // (b) one template, then a private copy per cell.
    const templateStart = performance.now();
    const template = await prepareTemplate({ repo, sha, hiddenPaths: HIDDEN, neutralize: [] }, { runner, parentDir: root });
    const templateMs = performance.now() - templateStart;
    if (!template.ok) throw new Error(JSON.stringify(template.error));
    const cellMs: number[] = [];
    for (let i = 0; i < CELLS; i += 1) {
      const start = performance.now();
      const cell = await materializeCell(template.value, { parentDir: root });
      cellMs.push(performance.now() - start);
      await removeTree(cell.path);
    }

    // (c) a raw `cp -a --reflink=auto` of the same checkout.
    const cpMs: number[] = [];
    for (let i = 0; i < CELLS; i += 1) {
      const dest = join(root, `raw-${i}`);
      const start = performance.now();
      spawnSync("cp", ["-a", "--reflink=auto", template.value.path, dest]);
      cpMs.push(performance.now() - start);
      rmSync(dest, { recursive: true, force: true });
    }

    const a = median(perCell);
    const b = median(cellMs);
    const c = median(cpMs);
    const rows = [
      ["repository", `${COMMITS} commits, ${FILES + 1} files (generated in ${genMs.toFixed(0)} ms)`],
      ["(a) clone+sanitize per cell, median", `${a.toFixed(1)} ms (total ${perCell.reduce((s, v) => s + v, 0).toFixed(0)} ms for ${CELLS})`],
      ["(b) template build once", `${templateMs.toFixed(1)} ms`],
      ["(b) materializeCell, median", `${b.toFixed(1)} ms (total incl. template ${(templateMs + cellMs.reduce((s, v) => s + v, 0)).toFixed(0)} ms)`],
      ["(c) raw cp -a --reflink=auto, median", `${c.toFixed(1)} ms`],
      ["(b)/(a) per cell", `${(b / a).toFixed(3)} (goal <= 0.100)`],
      ["(b)/(c) per cell", `${(b / c).toFixed(2)} (goal <= 2.00)`],
    ];
    process.stdout.write(`${rows.map(([k, v]) => `${(k ?? "").padEnd(40)} ${v}`).join("\n")}\n`);
  } finally {
    runner.dispose();
    await removeTree(root);
  }
}

await main();
