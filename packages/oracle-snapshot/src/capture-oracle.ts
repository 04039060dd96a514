import { constants as fsConstants } from "node:fs";
import type { Stats } from "node:fs";
import { lstat, open, realpath } from "node:fs/promises";
import { join } from "node:path";
import { OracleReadError } from "./errors.js";
import { MAX_ORACLE_FILE_BYTES, MAX_ORACLE_TOTAL_BYTES } from "./limits.js";
import { OracleSnapshot } from "./oracle-snapshot.js";
import type { OracleSnapshotFile } from "./oracle-snapshot.js";
import { OracleDeclarationSchema } from "./schema.js";
import type { OracleDeclaration } from "./schema.js";

/** Stable rule names of a capture refusal. */
export type OracleCaptureRule =
  | "declaration-invalid"
  | "source-missing"
  | "source-symlink"
  | "source-not-regular"
  | "file-too-large"
  | "total-too-large"
  | "source-changed-during-read";

/** Why a declared source could not be captured; the field is spelt as in the task file. */
export interface OracleCaptureRefusal {
  readonly field: string;
  readonly rule: OracleCaptureRule;
  readonly message: string;
}

/** Result of capturing an oracle. */
export type CaptureOracleResult =
  | { readonly ok: true; readonly value: OracleSnapshot }
  | { readonly ok: false; readonly error: OracleCaptureRefusal };

type ReadOutcome = { ok: true; payload: Buffer } | { ok: false; rule: OracleCaptureRule; message: string };

const sameNode = (left: Stats, right: Stats): boolean => left.dev === right.dev && left.ino === right.ino;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw new OracleReadError(`cannot inspect oracle path ${path}`, { cause: error });
  }
}

// Walks the source one component at a time with lstat, so no link anywhere on the path is ever followed.
async function inspectChain(root: string, parts: readonly string[]): Promise<Stats[] | ReadOutcome> {
  const chain: Stats[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const path = join(root, ...parts.slice(0, index + 1));
    const stats = await lstatOrNull(path);
    const last = index === parts.length - 1;
    if (stats === null) return { ok: false, rule: "source-missing", message: "does not exist under the oracles root" };
    if (stats.isSymbolicLink())
      return { ok: false, rule: "source-symlink", message: "is or passes through a symbolic link" };
    if (last ? !stats.isFile() : !stats.isDirectory())
      return { ok: false, rule: "source-not-regular", message: "is not a regular file under real directories" };
    chain.push(stats);
  }
  return chain;
}

async function readSource(root: string, source: string, remaining: number): Promise<ReadOutcome> {
  const parts = source.split("/");
  const chain = await inspectChain(root, parts);
  if (!Array.isArray(chain)) return chain;
  const fileStats = chain[chain.length - 1];
  if (fileStats === undefined) return { ok: false, rule: "source-missing", message: "is empty" };
  const limit = Math.min(MAX_ORACLE_FILE_BYTES, remaining);
  const tooLarge = (size: number): ReadOutcome =>
    size > MAX_ORACLE_FILE_BYTES
      ? { ok: false, rule: "file-too-large", message: `holds more than ${MAX_ORACLE_FILE_BYTES} bytes` }
      : { ok: false, rule: "total-too-large", message: `brings the oracle over ${MAX_ORACLE_TOTAL_BYTES} bytes` };
  if (fileStats.size > limit) return tooLarge(fileStats.size);
  const path = join(root, ...parts);
  let handle;
  try {
    // O_NONBLOCK: a FIFO swapped in after lstat must not hang the capture.
    handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === "ELOOP") return { ok: false, rule: "source-symlink", message: "became a symbolic link" };
    if (isMissing(error)) return { ok: false, rule: "source-changed-during-read", message: "vanished while read" };
    throw new OracleReadError(`cannot open oracle source ${source}`, { cause: error });
  }
  let payload: Buffer;
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || !sameNode(opened, fileStats))
      return { ok: false, rule: "source-changed-during-read", message: "was replaced while read" };
    // Read one byte past the limit so growth after lstat is caught rather than truncated.
    // Unsafe allocation is fine: only the filled prefix is ever used.
    const buffer = Buffer.allocUnsafe(limit + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > limit) return tooLarge(filled);
    const after = await handle.stat();
    if (filled !== after.size || after.size !== opened.size || after.mtimeMs !== opened.mtimeMs)
      return { ok: false, rule: "source-changed-during-read", message: "changed while read" };
    payload = buffer.subarray(0, filled);
  } catch (error) {
    throw new OracleReadError(`cannot read oracle source ${source}`, { cause: error });
  } finally {
    await handle.close();
  }
  // Re-walk: a directory swapped for a link while the file was open shows up as a different node.
  const again = await inspectChain(root, parts);
  if (!Array.isArray(again) || again.some((stats, index) => !sameNode(stats, chain[index] ?? stats)))
    return { ok: false, rule: "source-changed-during-read", message: "had its path changed while read" };
  return { ok: true, payload };
}

/**
 * Reads every declared source into an immutable in-memory snapshot. Trusts only the resolved oracles root itself;
 * refuses sources that are missing, symlinked (at any component), not regular, or over 512 KiB each / 2 MiB in all.
 * Run it once before any arm: later changes under the root cannot reach the snapshot.
 * @throws {OracleReadError} when the root or a source cannot be read for an environmental reason.
 */
export async function captureOracle(declaration: OracleDeclaration, oraclesRoot: string): Promise<CaptureOracleResult> {
  const parsed = OracleDeclarationSchema.safeParse(declaration);
  if (!parsed.success)
    return {
      ok: false,
      error: { field: "oracle", rule: "declaration-invalid", message: "declaration was not validated; validate it first" },
    };
  let root: string;
  try {
    root = await realpath(oraclesRoot);
    if (!(await lstat(root)).isDirectory()) throw new Error("not a directory");
  } catch (error) {
    throw new OracleReadError(`oracles root ${oraclesRoot} is not a readable directory`, { cause: error });
  }
  const files: OracleSnapshotFile[] = [];
  let total = 0;
  for (const [index, file] of parsed.data.files.entries()) {
    const outcome = await readSource(root, file.source, MAX_ORACLE_TOTAL_BYTES - total);
    if (!outcome.ok)
      return {
        ok: false,
        error: {
          field: `oracle.files[${index}].source`,
          rule: outcome.rule,
          message: `oracle.files[${index}].source '${file.source}' ${outcome.message}`,
        },
      };
    total += outcome.payload.byteLength;
    files.push({ target: file.target, payload: outcome.payload });
  }
  return { ok: true, value: new OracleSnapshot(parsed.data.command, files, parsed.data) };
}
