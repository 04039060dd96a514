import { assertSelfContained } from "./assert-self-contained.js";
import type { Result } from "./result.js";
import { runGit, type GitContext } from "./run-git.js";

/** The commit could not be found in the clone (not reachable from any branch of the source). */
export interface RefNotFound {
  readonly kind: "ref-not-found";
  readonly sha: string;
  readonly message: string;
}

/**
 * Clone `repo` into the empty directory `dest` without hardlinks, tags, alternates or templates, assert the
 * object store is self-contained, and detach HEAD at `sha`. Trusts `repo` to be a local path; runs no hooks.
 */
export async function makeClone(
  ctx: GitContext,
  repo: string,
  sha: string,
  dest: string,
): Promise<Result<void, RefNotFound>> {
  await runGit(
    ctx,
    dest,
    ["clone", "--no-local", "--no-hardlinks", "--no-tags", "--no-checkout", "--quiet", "--template=", "--", repo, dest],
    { long: true },
  );
  await assertSelfContained(dest);
  const present = await runGit(ctx, dest, ["cat-file", "-e", `${sha}^{commit}`], { accept: [0, 1, 128] });
  if (present.exitCode !== 0) {
    return { ok: false, error: { kind: "ref-not-found", sha, message: `commit ${sha} is not reachable from any branch of the source` } };
  }
  await runGit(ctx, dest, ["checkout", "--detach", "--quiet", sha], { long: true });
  const head = (await runGit(ctx, dest, ["rev-parse", "--verify", "HEAD"])).stdout.trim();
  if (head !== sha) {
    return { ok: false, error: { kind: "ref-not-found", sha, message: `checkout landed on ${head}, not ${sha}` } };
  }
  return { ok: true, value: undefined };
}
