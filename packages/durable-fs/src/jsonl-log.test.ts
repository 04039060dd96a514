import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openJsonlLog, readJsonl } from "./jsonl-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "durable-fs-log-"));
  dirs.push(dir);
  return dir;
}

describe("openJsonlLog", () => {
  it("writes one canonical line per value, in call order, mode 0600", async () => {
    const path = join(tempDir(), "log.jsonl");
    const log = await openJsonlLog(path);
    await Promise.all([log.append({ b: 1, a: "x" }), log.append({ run: 2, nested: { z: 1, y: [1, 2] } }), ...Array.from({ length: 20 }, (_, i) => log.append({ i }))]);
    await log.close();
    await log.close();
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines.slice(0, 2)).toEqual(['{"a":"x","b":1}', '{"nested":{"y":[1,2],"z":1},"run":2}']);
    expect(lines.slice(2, -1)).toEqual(Array.from({ length: 20 }, (_, i) => `{"i":${i}}`));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("appends after existing lines and never rewrites them", async () => {
    const path = join(tempDir(), "log.jsonl");
    writeFileSync(path, '{"run":0}\n');
    const log = await openJsonlLog(path, { mode: 0o644 });
    await log.append({ run: 1 });
    await log.close();
    expect(readFileSync(path, "utf8")).toBe('{"run":0}\n{"run":1}\n');
  });

  it("applies the transform to every line and refuses one that breaks the line, without stopping the log", async () => {
    const path = join(tempDir(), "log.jsonl");
    let calls = 0;
    const log = await openJsonlLog(path, { transform: (line) => (++calls === 2 ? "a\nb" : line.replace("sk-secret", "[REDACTED]")) });
    await log.append({ detail: "key sk-secret leaked" });
    await expect(log.append({ x: 1 })).rejects.toMatchObject({ code: "DURABLE_FS_NOT_ONE_LINE" });
    await log.append({ x: 2 });
    await log.close();
    await expect(log.append({ x: 3 })).rejects.toMatchObject({ code: "DURABLE_FS_WRITE_FAILED" });
    expect(readFileSync(path, "utf8")).toBe('{"detail":"key [REDACTED] leaked"}\n{"x":2}\n');
  });

  it("names the errno when the log cannot be opened, and rejects a failed append but keeps the next one's turn", async () => {
    await expect(openJsonlLog(join(tempDir(), "missing", "log.jsonl"))).rejects.toMatchObject({ code: "DURABLE_FS_WRITE_FAILED", errno: "ENOENT", message: expect.stringContaining("ENOENT") as unknown });
    const full = await openJsonlLog("/dev/full");
    await expect(full.append({ a: 1 })).rejects.toMatchObject({ code: "DURABLE_FS_WRITE_FAILED", errno: "ENOSPC", message: expect.stringContaining("ENOSPC") as unknown });
    await expect(full.append({ a: 2 })).rejects.toMatchObject({ code: "DURABLE_FS_WRITE_FAILED" });
    await full.close();
  });
});

describe("readJsonl", () => {
  it("returns the complete lines and reports an unterminated last line instead of dropping it", async () => {
    const path = join(tempDir(), "log.jsonl");
    writeFileSync(path, '{"run":0}\n[1]\n{"run":');
    expect(await readJsonl(path)).toEqual({ values: [{ run: 0 }, [1]], tornTail: '{"run":' });
    writeFileSync(path, '{"run":0}\n');
    expect(await readJsonl(path)).toEqual({ values: [{ run: 0 }], tornTail: null });
    writeFileSync(path, "");
    expect(await readJsonl(path)).toEqual({ values: [], tornTail: null });
  });

  it("throws DURABLE_FS_JSONL_CORRUPT naming a complete line that is not JSON", async () => {
    const path = join(tempDir(), "log.jsonl");
    writeFileSync(path, '{"run":0}\n\n{"run":2}\n');
    await expect(readJsonl(path)).rejects.toMatchObject({ code: "DURABLE_FS_JSONL_CORRUPT", line: 2 });
    await expect(readJsonl(join(tempDir(), "none.jsonl"))).rejects.toMatchObject({ code: "DURABLE_FS_READ_FAILED" });
  });
});

describe("a writer killed mid-append", () => {
  it("leaves every line it acknowledged intact and at most a torn last line", async () => {
    const path = join(tempDir(), "log.jsonl");
    const script = fileURLToPath(new URL("../test/fixtures/crash-writer/append-rows.ts", import.meta.url));
    const child = spawn(process.execPath, ["--conditions=@wfbench/source", "--import", "tsx", script, path], { stdio: ["ignore", "pipe", "inherit"] });
    let acknowledged = -1;
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        const last = chunk.trim().split("\n").pop();
        if (last !== undefined && last !== "") acknowledged = Number(last);
        if (acknowledged >= 40) {
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.on("error", reject);
      child.on("exit", (code) => (acknowledged >= 40 ? resolve() : reject(new Error(`writer exited early (${String(code)})`))));
    });
    await new Promise((resolve) => child.once("close", resolve));
    const { values } = await readJsonl(path);
    expect(values.length).toBeGreaterThanOrEqual(acknowledged + 1);
    values.forEach((value, index) => expect(value).toMatchObject({ task: "t", run: index }));
  });
});
