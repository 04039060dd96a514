import { mkdir, mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { installHarnessGitDir, type HarnessGitDir } from "@wfbench/clone-sanitizer";

/**
 * A new private HOME (with `.claude`, the CLI's config dir) and TMP for one session, 0700 under the cell's private
 * root: no session sees another's home, CLI state, shell snapshots or temporary files.
 */
export async function createSessionDirs(privateRoot: string): Promise<{ homeHostPath: string; tmpHostPath: string }> {
  const root = await mkdtemp(join(privateRoot, "session-"));
  const homeHostPath = join(root, "home");
  const tmpHostPath = join(root, "tmp");
  await mkdir(homeHostPath, { mode: 0o700 });
  await mkdir(join(homeHostPath, ".claude"), { mode: 0o700 });
  await mkdir(tmpHostPath, { mode: 0o700 });
  return { homeHostPath, tmpHostPath };
}

/**
 * Puts a fresh copy of the cell's harness-built git directory at `<workspace>/.git`; whatever a session left there is
 * moved aside (into the private root) unread. Before every session and before anything is measured.
 */
export async function resetWorkspaceGit(workspace: string, harnessGit: HarnessGitDir, privateRoot: string): Promise<void> {
  const aside = await mkdtemp(join(privateRoot, "left-git-"));
  await installHarnessGitDir(harnessGit, workspace, join(aside, "git"));
}
