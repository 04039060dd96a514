import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll, git, initRepo, writeFiles } from "./git-fixture.js";

/** Secrets planted in one place each; none may survive sanitizing. */
export const SECRETS = {
  olderCommit: "SECRET-OLDER-COMMIT-7f3a",
  target: "SECRET-TARGET-ORACLE-91bc",
  future: "SECRET-FUTURE-FIX-c0de",
  tag: "SECRET-IN-TAG-5511",
  annotatedTag: "SECRET-ANNOTATED-TAG-MSG-7711",
  stash: "SECRET-IN-STASH-2288",
  note: "SECRET-IN-NOTE-4431",
  reflog: "SECRET-IN-REFLOG-6120",
  replace: "SECRET-IN-REPLACE-9034",
  packedRef: "SECRET-IN-PACKED-REF-1177",
  dangling: "SECRET-DANGLING-BLOB-3345",
  worktree: "SECRET-IN-WORKTREE-8802",
  worktreeIndex: "SECRET-IN-WORKTREE-INDEX-5563",
  submodule: "SECRET-IN-SUBMODULE-TARGET-0042",
} as const;

/** Paths the tests declare hidden. */
export const HIDDEN = ["eval/workflow_bench", "hidden-labels.json"] as const;

/** Shape of a freshly built adversarial history. */
export interface AdversarialRepo {
  readonly repo: string;
  readonly target: string;
  readonly future: string;
  readonly submoduleCommit: string;
}

/**
 * Build a repo whose target commit carries the hidden harness, and plant every secret in a different hiding place:
 * an older commit, the future fix, a tag, a stash, a note, a reflog entry, a replace ref, a packed ref,
 * a dangling blob, a second worktree (commit and index) and a submodule pointer target (ORIG_HEAD names the reflog one).
 */
export function buildAdversarialRepo(root: string): AdversarialRepo {
  const repo = initRepo(join(root, "source"));
  writeFiles(repo, {
    "README.md": "visible readme\n",
    "src/app.ts": "export const answer = 42;\n",
    "eval/workflow_bench/oracles/old.oracle.test.ts": `// ${SECRETS.olderCommit}\n`,
  });
  commitAll(repo, "older commit with an old oracle");

  // A commit only reachable through a gitlink in the target tree (and a branch we delete in the source later).
  git(repo, ["checkout", "-q", "-b", "sub-src"]);
  writeFiles(repo, { "sub-only.txt": `${SECRETS.submodule}\n` });
  const submoduleCommit = commitAll(repo, "submodule pointer target");
  git(repo, ["checkout", "-q", "main"]);

  writeFiles(repo, {
    "eval/workflow_bench/oracles/target.oracle.test.ts": `// ${SECRETS.target}\n`,
    "hidden-labels.json": `{"label":"${SECRETS.target}-labels"}\n`,
    "shared.txt": "same bytes\n",
    "eval/workflow_bench/shared-copy.txt": "same bytes\n",
  });
  git(repo, ["add", "-A"]);
  git(repo, ["update-index", "--add", "--cacheinfo", `160000,${submoduleCommit},vendor/sub`]);
  git(repo, ["commit", "-q", "-m", "target commit"]);
  const target = git(repo, ["rev-parse", "HEAD"]);

  writeFiles(repo, { "fix.txt": `${SECRETS.future}\n` });
  const future = commitAll(repo, `the fix ${SECRETS.future}`);

  // Tags (lightweight on a side commit, annotated with a secret message).
  git(repo, ["checkout", "-q", "-b", "tagged", target]);
  writeFiles(repo, { "tagged.txt": `${SECRETS.tag}\n` });
  commitAll(repo, "tagged side commit");
  git(repo, ["tag", "side-tag"]);
  git(repo, ["tag", "-a", "ann-tag", "-m", SECRETS.annotatedTag, target]);
  git(repo, ["checkout", "-q", "main"]);
  git(repo, ["branch", "-D", "tagged"]);

  // Packed ref.
  git(repo, ["checkout", "-q", "-b", "packed-branch", target]);
  writeFiles(repo, { "packed.txt": `${SECRETS.packedRef}\n` });
  commitAll(repo, "packed branch commit");
  git(repo, ["checkout", "-q", "main"]);
  git(repo, ["pack-refs", "--all"]);

  // Reflog-only commit.
  writeFiles(repo, { "reflog.txt": `${SECRETS.reflog}\n` });
  const reflogOnly = commitAll(repo, "reflog-only commit");
  git(repo, ["reset", "-q", "--hard", "HEAD~1"]);
  git(repo, ["update-ref", "ORIG_HEAD", reflogOnly]);

  // Stash, note, replace ref, dangling blob.
  writeFiles(repo, { "README.md": `stashed ${SECRETS.stash}\n` });
  git(repo, ["stash", "-q"]);
  git(repo, ["notes", "add", "-m", SECRETS.note, target]);
  const visibleBlob = git(repo, ["rev-parse", `${target}:src/app.ts`]);
  const replacement = git(repo, ["hash-object", "-w", "--stdin"], { input: `${SECRETS.replace}\n` });
  git(repo, ["replace", visibleBlob, replacement]);
  git(repo, ["hash-object", "-w", "--stdin"], { input: `${SECRETS.dangling}\n` });

  // Second worktree with its own commit and a staged-only secret.
  const wt = join(root, "second-worktree");
  git(repo, ["worktree", "add", "-q", "-b", "wt-branch", wt, target]);
  writeFiles(wt, { "wt.txt": `${SECRETS.worktree}\n` });
  commitAll(wt, "worktree commit");
  writeFileSync(join(wt, "staged.txt"), `${SECRETS.worktreeIndex}\n`);
  git(wt, ["add", "staged.txt"]);
  return { repo, target, future, submoduleCommit };
}

/** Plant the same kinds of hiding places inside an existing clone (the sanitizer's own input). */
export function polluteClone(clone: string, root: string, target: string): void {
  git(clone, ["tag", "-a", "clone-tag", "-m", SECRETS.annotatedTag, target]);
  git(clone, ["checkout", "-q", "-b", "side", target]);
  writeFiles(clone, { "packed.txt": `${SECRETS.packedRef}\n`, "tagged.txt": `${SECRETS.tag}\n` });
  commitAll(clone, "side commit");
  git(clone, ["tag", "clone-side-tag"]);
  git(clone, ["pack-refs", "--all"]);
  writeFiles(clone, { "reflog.txt": `${SECRETS.reflog}\n` });
  const reflogOnly = commitAll(clone, "reflog only");
  git(clone, ["reset", "-q", "--hard", "HEAD~1"]);
  git(clone, ["update-ref", "ORIG_HEAD", reflogOnly]);
  git(clone, ["checkout", "-q", "--detach", target]);
  writeFiles(clone, { "README.md": `stashed ${SECRETS.stash}\n` });
  git(clone, ["stash", "-q"]);
  git(clone, ["notes", "add", "-m", SECRETS.note, target]);
  const visibleBlob = git(clone, ["rev-parse", `${target}:src/app.ts`]);
  const replacement = git(clone, ["hash-object", "-w", "--stdin"], { input: `${SECRETS.replace}\n` });
  git(clone, ["replace", visibleBlob, replacement]);
  git(clone, ["hash-object", "-w", "--stdin"], { input: `${SECRETS.dangling}\n` });
  const wt = join(root, "clone-worktree");
  git(clone, ["worktree", "add", "-q", "--detach", wt, target]);
  writeFiles(wt, { "wt.txt": `${SECRETS.worktree}\n` });
  git(wt, ["add", "wt.txt"]);
  git(wt, ["commit", "-q", "-m", "worktree commit"]);
  writeFileSync(join(wt, "staged.txt"), `${SECRETS.worktreeIndex}\n`);
  git(wt, ["add", "staged.txt"]);
  mkdirSync(join(clone, ".git", "rr-cache", "abc"), { recursive: true });
  writeFileSync(join(clone, ".git", "rr-cache", "abc", "preimage"), `${SECRETS.olderCommit}\n`);
  writeFileSync(join(clone, ".git", "COMMIT_EDITMSG"), `${SECRETS.future}\n`);
}
