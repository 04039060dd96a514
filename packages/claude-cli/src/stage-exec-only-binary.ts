import { constants } from "node:fs";
import { chmod, copyFile, lstat } from "node:fs/promises";
import { ClaudeCliError } from "./errors.js";

/** Mode of the staged CLI: execute for everyone, read for nobody. */
export const EXEC_ONLY_MODE = 0o111;

const READ_OR_WRITE_BITS = 0o666;

/**
 * Copies the Claude Code binary to `destination` (which must not exist) with mode 0111. Why: the kernel marks a
 * process non-dumpable when it execs a file it cannot read, and a non-dumpable CLI denies the agent's own tool
 * processes (same uid, same pid namespace) its /proc/<pid>/environ (the cell token), /proc/<pid>/mem and
 * pidfd_getfd of its stdout — the evidence stream. Trusts `source` to be the verified CLI; refuses an existing target.
 */
export async function stageExecOnlyBinary(source: string, destination: string): Promise<string> {
  await copyFile(source, destination, constants.COPYFILE_EXCL);
  await chmod(destination, EXEC_ONLY_MODE);
  await assertExecOnlyBinary(destination);
  return destination;
}

/**
 * Refuses a CLI binary the sandbox user could read or write (see stageExecOnlyBinary): a regular non-symlink file
 * with no read or write bit and some execute bit.
 * @throws {ClaudeCliError} CLAUDE_CLI_NOT_EXEC_ONLY otherwise.
 */
export async function assertExecOnlyBinary(path: string): Promise<void> {
  const stat = await lstat(path).catch(() => null);
  if (stat === null || !stat.isFile()) throw new ClaudeCliError("CLAUDE_CLI_NOT_EXEC_ONLY", `Claude Code binary ${path} is not a regular file`);
  if ((stat.mode & READ_OR_WRITE_BITS) !== 0 || (stat.mode & 0o111) === 0) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_NOT_EXEC_ONLY",
      `Claude Code binary ${path} has mode ${(stat.mode & 0o777).toString(8)}: stage it execute-only (0111) with stageExecOnlyBinary, or the agent can read the CLI's environment and memory`,
    );
  }
}

/** The host bash the execute-only shell is copied from (Debian's merged-/usr path). */
export const HOST_BASH = "/usr/bin/bash";

/**
 * Copies bash to `destination` (which must not exist) with mode 0111, for mounting at SANDBOX_SHELL with
 * CLAUDE_EXEC_ONLY_SHELL_ENV in the session's environment. Why: the CLI hands its own environment (the cell token) to
 * every shell it starts, and a shell run from a readable binary is dumpable, so any process the agent left running
 * could read that environment from /proc. Trusts `source` to be the host's bash; refuses an existing target.
 */
export function stageExecOnlyShell(destination: string, source: string = HOST_BASH): Promise<string> {
  return stageExecOnlyBinary(source, destination);
}
