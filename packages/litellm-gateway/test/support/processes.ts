import { readFileSync } from "node:fs";

/** True while `pid` exists and is not a zombie (reaping is not ours to guarantee inside a container). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Polls until every pid is gone; returns the ones still alive at the deadline. */
export async function waitForGone(pids: readonly number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls a file until `pattern` matches; returns the match. */
export async function waitForMatch(path: string, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      text = "";
    }
    const match = pattern.exec(text);
    if (match !== null) return match;
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in ${path} within ${timeoutMs} ms; got:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
