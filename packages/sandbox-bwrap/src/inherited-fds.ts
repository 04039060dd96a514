import { readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/**
 * Lists this process's open file descriptors above `above` that lack O_CLOEXEC, i.e. that every child would inherit
 * (Node marks its own fds close-on-exec; these come from whoever started the harness). Reads /proc/self; returns
 * null when that is impossible, so callers can fail closed instead of assuming there are none.
 */
export function listInheritableFds(above: number): number[] | null {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return null;
  }
  const fds: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= above) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    } catch (error) {
      // Closed since the listing (e.g. the listing's own directory handle): nothing to inherit. Anything else (EMFILE
      // when the harness is out of descriptors) leaves the fd unknown, and an unknown fd must not travel into bwrap.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      return null;
    }
    const flags = /^flags:\s+([0-7]+)$/m.exec(info)?.[1];
    if (flags === undefined) return null;
    if ((Number.parseInt(flags, 8) & O_CLOEXEC) === 0) fds.push(fd);
  }
  return fds.sort((a, b) => a - b);
}
