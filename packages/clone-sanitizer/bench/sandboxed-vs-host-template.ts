// Template build time through the host runner vs the bwrap-sandboxed runner, on a plain-file source committed once
// (default: the demo suite's mathlib, as the runner does). Usage: node --conditions=@wfbench/source --import tsx
// bench/sandboxed-vs-host-template.ts [sourceDir] [rounds]
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { GitRunner } from "../src/git-runner.js";
import { createHostGitRunner } from "../src/host-git-runner.js";
import { prepareTemplate } from "../src/prepare-template.js";
import { removeTree } from "@wfbench/durable-fs";
import { createSandboxedGitRunner } from "../src/sandboxed-git-runner.js";

const source = resolve(process.argv[2] ?? join(import.meta.dirname, "../../../tasks/demo/repos/mathlib"));
const rounds = Number(process.argv[3] ?? 7);
const scratch = mkdtempSync(join(tmpdir(), "wfbench-sbx-bench-"));
const repo = join(scratch, "source");
cpSync(source, repo, { recursive: true });
const env = { PATH: "/usr/bin:/bin", HOME: scratch, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
for (const args of [["init", "-q", "."], ["add", "-A", "."], ["commit", "-q", "-m", "bench"]]) execFileSync("/usr/bin/git", args, { cwd: repo, env });
const sha = execFileSync("/usr/bin/git", ["rev-parse", "HEAD"], { cwd: repo, env, encoding: "utf8" }).trim();
const parent = join(scratch, "templates");
mkdirSync(parent);

async function time(label: string, runner: GitRunner): Promise<void> {
  const samples: number[] = [];
  let digest = "";
  for (let i = 0; i < rounds; i += 1) {
    const start = performance.now();
    const built = await prepareTemplate({ repo, sha, hiddenPaths: [], neutralize: [] }, { runner, parentDir: parent });
    samples.push(performance.now() - start);
    if (!built.ok) throw new Error(built.error.message);
    digest = built.value.manifestDigest;
    await removeTree(built.value.path);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? NaN;
  console.log(`${label.padEnd(10)} median ${median.toFixed(0)} ms  min ${(samples[0] ?? NaN).toFixed(0)} ms  max ${(samples.at(-1) ?? NaN).toFixed(0)} ms  (${rounds} rounds, manifest ${digest.slice(0, 12)})`);
}

const host = createHostGitRunner();
try {
  console.log(`template build of ${source} (load ${execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).split(" ").slice(0, 3).join(" ")})`);
  await time("host", host);
  await time("sandboxed", createSandboxedGitRunner({ writableRoots: [parent], readOnlyRoots: [repo] }));
} finally {
  host.dispose();
  rmSync(scratch, { recursive: true, force: true });
}
