// Shared by the evolve int tests: a committed repo root holding the demo's incumbent skills, and `wfbench evolve` run
// as a real child process (from source, offline: a scripted model, a minimal environment holding no credential).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The workspace root (the CLI runs from here, so suite and script paths may be repo-relative). */
export const REPO_ROOT = fileURLToPath(new URL("../../../..", import.meta.url));

/** What one `wfbench evolve` run left: its exit code, its output and when it closed. */
export interface EvolveOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly closedAt: number;
}

/** Creates `root` as a git repo whose one commit holds the demo's incumbent skills (the apply destination). */
export function commitIncumbentSkills(root: string): string {
  mkdirSync(join(root, ".claude"), { recursive: true });
  cpSync(join(REPO_ROOT, "tasks/demo/repos/mathlib/.claude/skills"), join(root, ".claude/skills"), { recursive: true });
  for (const args of [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "incumbent skills"]]) {
    const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], { cwd: root, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")} in ${root} failed: ${result.stderr}`);
  }
  return root;
}

/** Runs `wfbench evolve --model claude-sonnet-4-5 --script <script> ...args`; onStdout sees the output so far. */
export function runEvolve(
  args: readonly string[],
  options: { readonly script?: string; readonly onStdout?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<EvolveOutcome> {
  return new Promise((resolve, reject) => {
    const script = options.script ?? "tasks/demo/scripted-model.yaml";
    const child = spawn(process.execPath, ["apps/runner/bin/wfbench.mjs", "evolve", "--model", "claude-sonnet-4-5", "--script", script, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root", WFBENCH_FROM_SOURCE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, closedAt: Date.now() }));
  });
}
