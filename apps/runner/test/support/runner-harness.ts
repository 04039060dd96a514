// Shared plumbing for the runner's integration tests: which host tools they need, how the runner is spawned from
// source, and how its results.jsonl is read back. Assertions stay in the test files; nothing here decides a verdict.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveClaudeCli } from "@wfbench/claude-cli";

/** The monorepo root: the runner is spawned from here, and fixtures outside apps/runner are addressed from it. */
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** The `wfbench` CLI entry point, run from source (never a build) so tests see the tree under test; sweeps run as `run`. */
export const RUNNER_MAIN = join(REPO_ROOT, "apps/runner/src/cli.ts");

/** What an integration test file may do on this host. */
export interface RunnerTools {
  /** bwrap, git and the pinned Claude Code CLI are all usable. */
  runnable: boolean;
  /** CI=true: a missing tool must fail the tests, never skip them. */
  required: boolean;
  /** Skip the file's real-runner tests: tools are missing and this is not CI. */
  skip: boolean;
  /** Which tool is missing, in the words of the skip note. */
  reason: string;
}

/** Probes bwrap, git and the pinned CLI for one test file; trusts only their exit status, and notes a non-CI skip on stderr. */
export async function probeRunnerTools(testFileUrl: string): Promise<RunnerTools> {
  const required = process.env["CI"] === "true";
  const hasBwrap = existsSync("/usr/bin/bwrap") && spawnSync("/usr/bin/bwrap", ["--version"], { stdio: "ignore" }).status === 0;
  const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
  const cli = await resolveClaudeCli().then(
    () => null,
    (error: unknown) => (error as Error).message,
  );
  const runnable = hasBwrap && hasGit && cli === null;
  const reason = `bwrap=${hasBwrap} git=${hasGit} cli=${cli ?? "ok"}`;
  const skip = !runnable && !required;
  if (skip) process.stderr.write(`${basename(fileURLToPath(testFileUrl))} skipped (set CI=true to make this a failure): ${reason}\n`);
  return { runnable, required, skip, reason };
}

/** How one runner process ended, with everything it printed (empty when output was not captured). */
export interface RunnerResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Knobs for one runner process. */
export interface RunRunnerOptions {
  /** false: the runner's stdio is ignored, so a straggler holding a pipe can never delay the exit being seen. */
  capture?: boolean;
  /** Called after every stdout chunk with all stdout so far, and the child so a test can signal it mid-run. */
  onStdout?: (stdout: string, child: ChildProcess) => void;
  /** Extra environment (e.g. TMPDIR, to see the scratch dirs the runner leaves); PATH and HOME come from the host. */
  env?: Readonly<Record<string, string>>;
  /** Called once right after the spawn, e.g. to watch the runner's process tree from /proc while it runs. */
  onSpawn?: (child: ChildProcess) => void;
  /** "bin": start through bin/wfbench.mjs (WFBENCH_FROM_SOURCE=1), the installed command's own loader set-up. */
  entry?: "source" | "bin";
}

/** Spawns the runner from source with only PATH and HOME from the host (no key, no CI flags) and waits for it to close. */
export function runRunner(args: readonly string[], options: RunRunnerOptions = {}): Promise<RunnerResult> {
  const capture = options.capture ?? true;
  return new Promise((resolve, reject) => {
    const viaBin = options.entry === "bin";
    const argv = viaBin ? [join(REPO_ROOT, "apps/runner/bin/wfbench.mjs"), "run", ...args] : ["--conditions=@wfbench/source", "--import", "tsx", RUNNER_MAIN, "run", ...args];
    const child = spawn(process.execPath, argv, {
      cwd: REPO_ROOT,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root", ...(viaBin ? { WFBENCH_FROM_SOURCE: "1" } : {}), ...options.env },
      stdio: capture ? ["ignore", "pipe", "pipe"] : "ignore",
    });
    options.onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(stdout, child);
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Parses every line of an output directory's results.jsonl; trusts nothing about the shape beyond valid JSON per line. */
export function readResultRows<Row = Record<string, unknown>>(outDir: string): Row[] {
  return readFileSync(join(outDir, "results.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Row);
}

/** The transcript files of one task under `outDir/transcripts` (every arm, run and session whose name starts `<task>-`). */
export function listTaskTranscripts(outDir: string, task: string): string[] {
  return readdirSync(join(outDir, "transcripts"))
    .filter((name) => name.startsWith(`${task}-`))
    .map((name) => join(outDir, "transcripts", name));
}

/**
 * The text of every tool_result block of one parent-captured transcript, in order: what the agent saw its tools
 * return inside the session (a non-string content as its JSON). Lines that are not events' JSON throw.
 */
export function readToolResultTexts(transcriptPath: string): string[] {
  const texts: string[] = [];
  for (const line of readFileSync(transcriptPath, "utf8").trimEnd().split("\n")) {
    const event = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
    if (event.type !== "user" || !Array.isArray(event.message?.content)) continue;
    for (const block of event.message.content as { type?: string; content?: unknown }[]) {
      if (block.type === "tool_result") texts.push(typeof block.content === "string" ? block.content : JSON.stringify(block.content));
    }
  }
  return texts;
}
