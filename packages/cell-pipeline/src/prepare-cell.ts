import { performance } from "node:perf_hooks";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SETTINGS_STUB_CONTENT, buildHarnessGitDir, materializeCell, materializeTaskAssets, type HarnessGitDir } from "@wfbench/clone-sanitizer";
import { isCandidateArm } from "@wfbench/result-row";
import { runSandboxed, type Mount } from "@wfbench/sandbox-bwrap";
import { redactText } from "@wfbench/stream-json-evidence";
import { applyCandidateOverlay } from "./apply-candidate-overlay.js";
import { buildSandboxEnv } from "./build-sandbox-env.js";
import type { RunCellInput } from "./cell-input.js";
import { computeSkillFingerprint } from "./compute-skill-fingerprint.js";
import { TASK_COMMANDS_PHASE, recordPhase, timePhase } from "./time-phase.js";
import type { CellDraft } from "./empty-row.js";
import { digestWorkspaceDiff, readWorkspaceHead } from "./inspect-workspace.js";
import { resetWorkspaceGit } from "./session-dirs.js";

/** A task's setup command gets ten minutes (workspace writable, no network). */
const SETUP_TIMEOUT_MS = 600_000;

/** A cell ready for its sessions: private directories, the clone, and what the diff is measured against. */
export interface PreparedCell {
  readonly ok: true;
  readonly workspace: string;
  readonly home: string;
  readonly tmp: string;
  readonly privateRoot: string;
  /** HEAD after setup and overlay: the diff base (`variant_head_sha`). */
  readonly baseSha: string;
  /** The evaluated skills' fingerprint before any session (`skill_digest`). */
  readonly skillDigest: string | null;
  /** The non-plan diff digest before any session (for no-work-produced). */
  readonly diffBefore: string;
  /** The harness's own git directory (base objects, harness config and attributes): every later git reads a copy. */
  readonly harnessGit: HarnessGitDir;
  /** The harness's read-only `{}` that covers the workspace's Claude Code settings files during sessions. */
  readonly settingsStub: string;
  /** The task's frozen dependencies, read-only at /workspace/<target> in every sandboxed command of the cell. */
  readonly dependencyMounts: readonly Mount[];
  /** `.vite-temp` tmpfs overlays inside read-only node_modules dependencies (vitest writes its config bundle there). */
  readonly dependencyTmpfs: readonly string[];
}

/** The task's setup command failed: the cell stops here as an infra error. */
export interface SetupFailed {
  readonly ok: false;
  /** `setup <state> (exit <code>): <redacted stderr tail>`. */
  readonly detail: string;
}

async function privateDir(path: string): Promise<string> {
  await mkdir(path, { mode: 0o700 });
  return path;
}

/**
 * Prepares a cell inside its private root: home (with `.claude`), tmp and private directories (0700), a private copy
 * of the sanitized template, the task's setup in the sandbox (no network), the candidate overlay committed on top for
 * candidate arms, then HEAD, the harness's own git directory (installed as the workspace's `.git`), the skill
 * fingerprint and the diff digest before any session. Records
 * `variant_head_sha` and `skill_digest` in the draft as soon as they are known, so a later failure keeps them.
 * Returns SetupFailed for a failed setup; environment failures throw.
 */
export async function prepareCell(input: RunCellInput, cellRoot: string, draft: CellDraft, secrets: readonly string[], evaluatedSkills: readonly string[]): Promise<PreparedCell | SetupFailed> {
  const signal = input.signal === undefined ? {} : { signal: input.signal };
  // Every process of the cell runs on the cell's backend (host-unsafe only for review arms, chosen by the app).
  const sandbox = input.backend?.run ?? runSandboxed;
  const home = await privateDir(join(cellRoot, "home"));
  await mkdir(join(home, ".claude"), { mode: 0o700 });
  const tmp = await privateDir(join(cellRoot, "tmp"));
  const privateRoot = await privateDir(join(cellRoot, "private"));
  // Outside every mount but the sessions' own read-only binds of it, so nothing in the cell can change its bytes.
  const settingsStub = join(privateRoot, "claude-settings-stub.json");
  await writeFile(settingsStub, SETTINGS_STUB_CONTENT, { mode: 0o444, flag: "wx" });
  await chmod(settingsStub, 0o444);
  const clone = await timePhase(draft, "materialize", () => materializeCell(input.template, { parentDir: cellRoot, ...signal }));
  const workspace = clone.path;
  // Copies land in the clone before setup (a review case's setup applies its copied patch); dependencies only get
  // their mount points here and are bound read-only from the frozen snapshot, never copied.
  const assets = input.source.assets === null ? null : await timePhase(draft, "materialize", () => materializeTaskAssets(input.source.assets as NonNullable<typeof input.source.assets>, workspace));
  const dependencyMounts: Mount[] = (assets?.readOnlyBinds ?? []).map((bind) => ({ source: bind.source, target: bind.target, mode: "ro" }));
  const dependencyTmpfs = [...(assets?.tmpfs ?? [])];
  // Setup is the task's command plus the harness's own steps before the first session (overlay, git dir, digests).
  const setupStarted = performance.now();
  try {
    if (input.task.setup !== null) {
      // Taken before setup: a setup that rewrites the evaluated skills would otherwise measure skills nobody chose.
      const baseSkillDigest = await computeSkillFingerprint(workspace, evaluatedSkills);
      const command = input.task.setup;
      const setup = await timePhase(draft, TASK_COMMANDS_PHASE, () => sandbox({ workspace: { hostPath: workspace, mode: "rw" }, mounts: dependencyMounts, tmpfs: dependencyTmpfs, env: buildSandboxEnv(), network: { mode: "none" } }, ["/bin/sh", "-lc", command], { timeoutMs: SETUP_TIMEOUT_MS, ...signal }));
      if (!setup.ok) return { ok: false, detail: `setup ${setup.state} (exit ${String(setup.exitCode)}): ${redactText(setup.stderrTail.slice(-1500), secrets)}` };
      const afterSetup = await computeSkillFingerprint(workspace, evaluatedSkills).catch((error: unknown) => `unreadable (${(error as Error).message})`);
      if (afterSetup !== baseSkillDigest) {
        return { ok: false, detail: `setup changed the evaluated skills (.claude/skills/{${evaluatedSkills.join(",")}} fingerprint ${baseSkillDigest} became ${redactText(String(afterSetup), secrets)}): a task's setup must leave the skills under test alone` };
      }
    }
    if (isCandidateArm(input.arm) && input.overlay !== undefined) await applyCandidateOverlay(workspace, input.overlay.files, input.timeoutMs, input.signal, sandbox);
    const baseSha = await readWorkspaceHead(workspace, input.signal, sandbox);
    draft.variant_head_sha = baseSha;
    // Setup is untrusted too: from here on the workspace's .git is the harness's rebuilt one, before and after sessions.
    const harnessGit = await buildHarnessGitDir({ checkout: workspace, dest: join(privateRoot, "harness-git"), headSha: baseSha, objectFormat: input.template.manifest.object_format });
    await resetWorkspaceGit(workspace, harnessGit, privateRoot);
    const skillDigest = await computeSkillFingerprint(workspace, evaluatedSkills);
    draft.skill_digest = skillDigest;
    const diffBefore = await digestWorkspaceDiff(workspace, baseSha, privateRoot, input.signal, sandbox);
    return { ok: true, workspace, home, tmp, privateRoot, baseSha, skillDigest, diffBefore, harnessGit, settingsStub, dependencyMounts, dependencyTmpfs };
  } finally {
    recordPhase(draft, "setup", performance.now() - setupStarted);
  }
}
