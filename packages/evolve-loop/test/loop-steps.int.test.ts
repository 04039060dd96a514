// The loop's process-spawning steps on real processes: the repo-root and target-base checks (sandboxed git against a
// temp repository) and the child runner's process-group handling (a grandchild that ignores SIGTERM is still gone).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { sha256Hex } from "@wfbench/digest";
import { afterAll, describe, expect, it } from "vitest";
import { checkRepoRoot, pinTargetBases } from "../src/pin-target-bases.js";
import { runChild } from "../src/run-child.js";

const dir = mkdtempSync(join(tmpdir(), "evolve-steps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SKILL = ".claude/skills/demo-work/SKILL.md";
const MIRROR = "gitnexus/skills/demo-work/SKILL.md";

function repo(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  for (const args of [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]]) {
    const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], { cwd: root, encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
  }
  return root;
}

describe("checkRepoRoot", () => {
  it("accepts the top of a working tree and refuses a subdirectory or a plain directory", async () => {
    const root = repo("top", { [SKILL]: "# work\n" });
    expect(await checkRepoRoot(root)).toBe(root);
    await expect(checkRepoRoot(join(root, ".claude"))).rejects.toMatchObject({ code: "EVOLVE_LOOP_BAD_INPUT", message: expect.stringMatching(/not its top|is not a git working tree/u) });
    const plain = join(dir, "plain");
    mkdirSync(plain);
    await expect(checkRepoRoot(plain)).rejects.toMatchObject({ code: "EVOLVE_LOOP_BAD_INPUT", message: expect.stringMatching(/is not a git working tree/u) });
  });
});

describe("pinTargetBases", () => {
  it("pins the canonical target and every mirror HEAD holds, by the sha256 of the committed bytes", async () => {
    const root = repo("clean", { [SKILL]: "# work\n", [MIRROR]: "# mirror\n" });
    expect(await pinTargetBases(root, [SKILL])).toEqual({ [SKILL]: sha256Hex("# work\n"), [MIRROR]: sha256Hex("# mirror\n") });
  });

  it("refuses uncommitted or drifted bytes, a mirror only in the working tree, and an uncommitted canonical target", async () => {
    const drifted = repo("drifted", { [SKILL]: "# work\n" });
    writeFileSync(join(drifted, SKILL), "# work, edited\n");
    await expect(pinTargetBases(drifted, [SKILL])).rejects.toMatchObject({ code: "EVOLVE_LOOP_TARGET_DRIFT", message: expect.stringContaining(`${SKILL}: uncommitted or drifted bytes`) });
    const extra = repo("extra-mirror", { [SKILL]: "# work\n" });
    mkdirSync(dirname(join(extra, MIRROR)), { recursive: true });
    writeFileSync(join(extra, MIRROR), "# new\n");
    await expect(pinTargetBases(extra, [SKILL])).rejects.toMatchObject({ message: expect.stringContaining(`${MIRROR}: uncommitted or drifted bytes`) });
    const missing = repo("missing", { "README.md": "x\n" });
    await expect(pinTargetBases(missing, [SKILL])).rejects.toMatchObject({ code: "EVOLVE_LOOP_TARGET_DRIFT", message: expect.stringMatching(/is not committed at HEAD/u) });
  });
});

describe("runChild", () => {
  // Running, not merely a zombie its (re)parent has yet to reap.
  const alive = (pid: number): boolean => {
    try {
      return !/^\d+ \(.*\) Z/u.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };

  it("on abort SIGTERMs the child's group, SIGKILLs what ignores it after the grace, and leaves no grandchild", async () => {
    const controller = new AbortController();
    let out = "";
    const done = runChild({
      command: "/bin/sh",
      // The grandchild ignores SIGTERM and prints its pid; the shell waits for it.
      args: ["-c", "(trap '' TERM; sleep 60 & echo $!; wait) ; wait"],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: null,
      signal: controller.signal,
      onStdout: (text) => {
        out += text;
        if (/\d+\n/u.test(out)) controller.abort();
      },
      onStderr: () => undefined,
      graceMs: 500,
    });
    const outcome = await done;
    expect(outcome.cancelled).toBe(true);
    const grandchild = Number(out.trim());
    expect(grandchild).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alive(grandchild)).toBe(false);
  });

  it("stops a child at its deadline and reports the exit code of one that ends by itself", async () => {
    const timed = await runChild({ command: "/bin/sh", args: ["-c", "sleep 60"], cwd: dir, env: { PATH: "/usr/bin:/bin" }, timeoutMs: 300, signal: new AbortController().signal, onStdout: () => undefined, onStderr: () => undefined, graceMs: 500 });
    expect(timed).toMatchObject({ timedOut: true, cancelled: false });
    const exited = await runChild({ command: "/bin/sh", args: ["-c", "exit 3"], cwd: dir, env: {}, timeoutMs: null, signal: new AbortController().signal, onStdout: () => undefined, onStderr: () => undefined });
    expect(exited).toEqual({ exitCode: 3, cancelled: false, timedOut: false });
  });
});
