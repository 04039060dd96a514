import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { BenchReportError } from "./errors.js";

/**
 * Replaces `path` atomically: writes a temp file beside it (exclusive create), fsyncs it, renames it over `path`, then
 * fsyncs the directory. Readers see the old bytes or the new bytes, never a mix. Trusts `path`'s directory.
 * @throws {BenchReportError} BENCH_REPORT_WRITE_FAILED (the temp file is removed).
 */
export async function writeFileAtomic(path: string, text: string, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(8).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    const dirHandle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw new BenchReportError("BENCH_REPORT_WRITE_FAILED", `cannot write ${path}`, { cause });
  }
}
