import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { expectedAfterApply, makeOverlayRepo, snapshotTree } from "./support/overlay-repo.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const child = path.join(here, "fixtures/signal-apply/child.ts");
const roots: string[] = [];
// afterAll, not afterEach: the tests run concurrently and must not delete each other's repositories.
afterAll(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

interface ChildRun {
  readonly root: string;
  readonly before: Record<string, string>;
  readonly after: Record<string, string>;
  readonly stdout: string;
  readonly exit: NodeJS.Signals | number | null;
}

async function runChild(signal: NodeJS.Signals, mode: string): Promise<ChildRun> {
  const { root, bases } = makeOverlayRepo();
  roots.push(root);
  const before = snapshotTree(root);
  const after = expectedAfterApply(root);
  const proc = spawn(process.execPath, ["--conditions=@wfbench/source", "--import", "tsx", child, root, JSON.stringify(bases), signal, mode], {
    cwd: path.join(here, ".."),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = await new Promise<NodeJS.Signals | number | null>((resolve) => proc.on("close", (code, sig) => resolve(sig ?? code)));
  if (stderr.trim() !== "") stdout += `\n[stderr] ${stderr}`;
  return { root, before, after, stdout, exit };
}

function temporaries(root: string): string[] {
  return Object.keys(snapshotTree(root)).filter((name) => /(^|\/)\.(wfevolve-|wfbench-overlay-recovery-)/.test(name));
}

describe("applyPromotedOverlay under a termination signal in the middle of publishing", () => {
  it.concurrent.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "%s with no host listener: the transaction finishes all-new, then the signal takes its default effect",
    async (signal) => {
      const run = await runChild(signal, "plain");
      expect(run.stdout).toContain("outcome:applied\nreturned\n");
      expect(run.exit).toBe(signal);
      expect(snapshotTree(run.root)).toEqual(run.after);
      expect(temporaries(run.root)).toEqual([]);
    },
  );

  it.concurrent("SIGTERM followed by a later failure: every landed file is rolled back before the process dies", async () => {
    const run = await runChild("SIGTERM", "fail-later");
    expect(run.stdout).toContain("outcome:PROMOTION_APPLY_ROLLED_BACK\nreturned\n");
    expect(run.exit).toBe("SIGTERM");
    expect(snapshotTree(run.root)).toEqual(run.before);
    expect(temporaries(run.root)).toEqual([]);
  });

  it.concurrent("SIGTERM with a host listener: the host handles it after the transaction, and the process lives", async () => {
    const run = await runChild("SIGTERM", "own-listener");
    expect(run.stdout).toContain("outcome:applied\nreturned\nhost-listener-ran\n");
    expect(run.exit).toBe(0);
    expect(snapshotTree(run.root)).toEqual(run.after);
  });

  it.concurrent("no signal: the process-wide listener count is back where it was", async () => {
    const run = await runChild("SIGTERM", "no-signal");
    expect(run.stdout).toContain("outcome:applied\nreturned\nlisteners:0->0\n");
    expect(run.exit).toBe(0);
    expect(snapshotTree(run.root)).toEqual(run.after);
  });
});
