import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Under CI a missing tool is a failure, never a skip. */
export const toolsRequired = process.env.CI === "true";
export const hasBwrap = existsSync("/usr/bin/bwrap");
/** True when bwrap-backed tests must not run (tool absent and not under CI). */
export const skipBwrap = !hasBwrap && !toolsRequired;
if (skipBwrap) process.stderr.write("sandbox-bwrap: /usr/bin/bwrap not found, skipping integration tests (CI would fail)\n");

/** Standard in-sandbox env used by tests. */
export const TEST_ENV = { PATH: "/usr/bin:/bin", HOME: "/home/agent", LANG: "C.UTF-8" } as const;

/** A temp directory removed by the returned cleanup. */
export function makeTempDir(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), `wfbench-sbx-${prefix}-`));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Every host process's command line, as `ps` would show it (NULs as spaces). */
export function hostCommandLines(): Array<{ pid: number; cmdline: string }> {
  const out: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      out.push({ pid: Number(entry), cmdline });
    } catch {
      // Raced with an exiting process.
    }
  }
  return out;
}

/** Live (non-zombie) host pids whose command line contains `needle`. */
export function livePidsMatching(needle: string): number[] {
  return hostCommandLines()
    .filter((p) => p.cmdline.includes(needle) && p.pid !== process.pid)
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p.pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}

/** Unique-ish token for markers and secrets. */
export function token(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}
