import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { assertSelfContained } from "./assert-self-contained.js";
import { copyTree } from "./copy-tree.js";
import { CopyFailedError, NotSelfContainedError, SanitizerError } from "./errors.js";
import type { Template } from "./prepare-template.js";
import { removeTree } from "@wfbench/durable-fs";

/** A private, self-contained copy of a template for one cell. */
export interface Cell {
  readonly path: string;
  readonly sanitizedSha: string;
  readonly copyMethod: "cp" | "buffered";
}

/** Options of materializeCell. */
export interface MaterializeCellOptions {
  /** Directory that receives the copy (a fresh `wfbench-cell-*` child). */
  readonly parentDir: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** The `cp` binary; tests point it elsewhere to exercise the fallback. */
  readonly cpPath?: string;
}

const DEFAULT_COPY_TIMEOUT_MS = 600_000;

/**
 * Copy a template into a fresh private directory (`cp -a --reflink=auto`, or a buffered copy after a genuine
 * nonzero `cp` exit), then refuse the copy unless its objects are self-contained and HEAD is the sanitized sha.
 * A timeout or cancellation never falls back. Trusts the template was verified; the partial copy is removed.
 */
export async function materializeCell(template: Template, options: MaterializeCellOptions): Promise<Cell> {
  if (options.signal?.aborted === true) throw new CopyFailedError("SANITIZER_COPY_CANCELLED", "cell copy cancelled");
  const dest = await mkdtemp(join(options.parentDir, "wfbench-cell-"));
  try {
    let copyMethod: Cell["copyMethod"] = "cp";
    const exit = await runCp(options.cpPath ?? "/usr/bin/cp", template.path, dest, options);
    if (exit !== 0) {
      copyMethod = "buffered";
      await removeTree(dest);
      await mkdir(dest, { mode: 0o700 });
      await copyTree(template.path, dest, undefined, options.signal);
    }
    await assertSelfContained(dest);
    const head = await readFile(join(dest, ".git", "HEAD"), "utf8");
    if (head !== `${template.sanitizedSha}\n`) {
      throw new NotSelfContainedError(`cell HEAD ${JSON.stringify(head.slice(0, 80))} is not ${template.sanitizedSha}`);
    }
    return { path: dest, sanitizedSha: template.sanitizedSha, copyMethod };
  } catch (error) {
    await removeTree(dest);
    throw error;
  }
}

function runCp(cpPath: string, src: string, dest: string, options: MaterializeCellOptions): Promise<number> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_COPY_TIMEOUT_MS;
  return new Promise<number>((resolve, reject) => {
    let settled = false;
    const child = spawn(cpPath, ["-a", "--reflink=auto", "-T", "--", src, dest], {
      env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
      stdio: "ignore",
      detached: true,
      shell: false,
    });
    const finish = (error: SanitizerError | undefined, code = 0): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (error !== undefined) {
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
        reject(error);
      } else resolve(code);
    };
    const onAbort = (): void => finish(new CopyFailedError("SANITIZER_COPY_CANCELLED", "cell copy cancelled"));
    const timer = setTimeout(
      () => finish(new CopyFailedError("SANITIZER_COPY_TIMEOUT", `cp exceeded ${timeoutMs} ms`)),
      timeoutMs,
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // An abort between the caller's check and this listener has already fired its event: it would never be seen.
    if (options.signal?.aborted === true) onAbort();
    // Only a cp that ran and exited nonzero may fall back (spec §7.4); one that never started is an error.
    child.on("error", (error) =>
      finish(new CopyFailedError("SANITIZER_COPY_FAILED", `could not start ${cpPath}: ${error.message}`, { cause: error })),
    );
    child.on("close", (code, signal) => finish(undefined, code ?? (signal === null ? 1 : 128)));
  });
}
