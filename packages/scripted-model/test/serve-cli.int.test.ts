// The `scripted-model serve` command as people run it by hand: node + tsx on the source.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
const EXAMPLE = fileURLToPath(new URL("../scripts/smoke-skill-write-bash.yaml", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

interface Running {
  firstLine: Promise<string>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stop(): void;
}

function startCli(args: readonly string[]): Running {
  const child = spawn(process.execPath, ["--conditions=@wfbench/source", "--import", "tsx", CLI, ...args], {
    cwd: PACKAGE_DIR,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let announce: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (announce = resolve));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (stdout.includes("\n")) announce(stdout.split("\n")[0] ?? "");
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(killer);
      announce("");
      resolve({ code, stdout, stderr });
    }),
  );
  return { firstLine, exited, stop: () => child.kill("SIGTERM") };
}

describe("scripted-model serve", () => {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "sm-cli-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("prints the base URL once listening, serves the script, logs, and exits 0 on SIGTERM", async () => {
    const logPath = join(dir, "log.jsonl");
    const running = startCli(["serve", "--script", EXAMPLE, "--listen", "127.0.0.1:0", "--log", logPath]);
    const baseUrl = await running.firstLine;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${baseUrl}/v1/messages?beta=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "WFBENCH-SMOKE-7f3a" }] }),
    });
    expect(response.status).toBe(200);
    const message = (await response.json()) as { content: Array<{ type: string; name?: string }> };
    expect(message.content.map((block) => block.name ?? block.type)).toEqual(["text", "Skill"]);
    running.stop();
    const { code } = await running.exited;
    expect(code).toBe(0);
    expect((await readFile(logPath, "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("listens on a Unix socket given as unix:/path", async () => {
    const socketPath = join(dir, "m.sock");
    const running = startCli(["serve", "--script", EXAMPLE, "--listen", `unix:${socketPath}`]);
    expect(await running.firstLine).toBe("http://localhost");
    running.stop();
    const { code, stderr } = await running.exited;
    expect(code).toBe(0);
    expect(stderr).toContain(socketPath);
  });

  it("exits 2 with the usage for a bad argument, printing nothing on stdout", async () => {
    const { code, stderr, stdout } = await startCli(["serve", "--script", "x.yaml", "--listen", "0.0.0.0:80"]).exited;
    expect(code).toBe(2);
    expect(stderr).toMatch(/127\.0\.0\.1:PORT.*0\.0\.0\.0:80/);
    expect(stderr).toContain("usage: scripted-model serve");
    expect(stdout).toBe("");
  });

  it("exits 2 naming the file and the field of a bad script", async () => {
    const bad = join(dir, "bad.yaml");
    await writeFile(bad, "version: 1\ntrajectories:\n  - name: t\n    match: { contains: X }\n    turns:\n      - content: []\n        usage: { input_tokens: 1, output_tokens: 1 }\n");
    const { code, stderr } = await startCli(["serve", "--script", bad, "--listen", "127.0.0.1:0"]).exited;
    expect(code).toBe(2);
    expect(stderr).toContain(bad);
    expect(stderr).toContain("trajectories[0].turns[0].content");
  });
});
