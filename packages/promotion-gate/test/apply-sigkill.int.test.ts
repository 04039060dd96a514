import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { recoverOverlayTransaction } from "../src/index.js";
import { makeOverlayRepo, snapshotTree } from "./support/overlay-repo.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const child = path.join(here, "fixtures/sigkill-apply/child.ts");
const recoveryChild = path.join(here, "fixtures/sigkill-recovery/child.ts");
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** Spawns a fixture child and SIGKILLs it once it has written its freeze marker. */
async function killWhenFrozen(script: string, args: readonly string[], marker: string): Promise<void> {
  const proc = spawn(process.execPath, ["--conditions=@wfbench/source", "--import", "tsx", script, ...args], {
    cwd: path.join(here, ".."),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => proc.on("exit", (code, signal) => resolve(signal ?? code)));
  for (let waited = 0; !fs.existsSync(marker); waited += 20) {
    if (waited > 30_000 || proc.exitCode !== null) throw new Error(`child never froze: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  proc.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
}

async function killMidPublish(freezeAt: number): Promise<{ root: string; before: Record<string, string> }> {
  const { root, bases } = makeOverlayRepo();
  roots.push(root);
  const before = snapshotTree(root);
  const marker = `${root}.frozen`;
  roots.push(marker);
  await killWhenFrozen(child, [root, JSON.stringify(bases), marker, String(freezeAt)], marker);
  return { root, before };
}

function findJournal(root: string): string {
  const journals = fs.readdirSync(root).filter((name) => name.startsWith(".wfbench-overlay-recovery-") && name.endsWith(".json"));
  expect(journals).toHaveLength(1);
  return path.join(root, journals[0] as string);
}

describe("applyPromotedOverlay under SIGKILL", () => {
  it.each([1, 4, 7])("leaves a journal after a kill at destination rename %i, and recovery restores every byte", async (freezeAt) => {
    const { root, before } = await killMidPublish(freezeAt);
    const journals = fs.readdirSync(root).filter((name) => name.startsWith(".wfbench-overlay-recovery-") && name.endsWith(".json"));
    expect(journals).toHaveLength(1);
    const journalPath = path.join(root, journals[0] as string);
    const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as { transaction_state: string; backups: Array<{ target: string }> };
    expect(journal.transaction_state).toBe("in-progress");
    expect(journal.backups).toHaveLength(7);
    // Mid-publish the tree is mixed: some destinations already hold the candidate.
    expect(snapshotTree(root)).not.toEqual(before);

    const recovered = recoverOverlayTransaction(journalPath);
    expect(recovered).toMatchObject({ ok: true, value: { outcome: "rolled-back" } });
    expect(recovered.ok && recovered.value.restored).toHaveLength(freezeAt);
    expect(snapshotTree(root)).toEqual(before);
  });

  it("a recovery that is itself SIGKILLed midway can be run again and still restores every byte", async () => {
    const { root, before } = await killMidPublish(7);
    const journalPath = findJournal(root);
    const marker = `${root}.recovery-frozen`;
    roots.push(marker);
    await killWhenFrozen(recoveryChild, [journalPath, marker, "3"], marker);
    // The first recovery restored 3 files and died; its journal still says in-progress.
    expect(snapshotTree(root)).not.toEqual(before);
    const recovered = recoverOverlayTransaction(journalPath);
    expect(recovered).toMatchObject({ ok: true, value: { outcome: "rolled-back" } });
    expect(snapshotTree(root)).toEqual(before);
  });
});
