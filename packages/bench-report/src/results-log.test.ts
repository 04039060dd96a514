import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openResultsLog, readResultRows, readResultsLog } from "./results-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-report-"));
  dirs.push(dir);
  return dir;
}

describe("openResultsLog", () => {
  it("writes one canonical line per row, in order, mode 0600", async () => {
    const path = join(tempDir(), "results.jsonl");
    const log = await openResultsLog(path);
    await Promise.all([log.append({ b: 1, a: "x" }), log.append({ run: 2, nested: { z: 1, y: [1, 2] } })]);
    await log.close();
    expect(readFileSync(path, "utf8")).toBe('{"a":"x","b":1}\n{"nested":{"y":[1,2],"z":1},"run":2}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("appends after existing rows and never rewrites them", async () => {
    const path = join(tempDir(), "results.jsonl");
    writeFileSync(path, '{"run":0}\n');
    const log = await openResultsLog(path);
    await log.append({ run: 1 });
    await log.close();
    expect(readFileSync(path, "utf8")).toBe('{"run":0}\n{"run":1}\n');
  });

  it("applies the redactor to every line and refuses one that breaks the line", async () => {
    const path = join(tempDir(), "results.jsonl");
    const log = await openResultsLog(path, { redact: (line) => line.replace("sk-secret", "[REDACTED]") });
    await log.append({ detail: "key sk-secret leaked" });
    await expect(openResultsLog(join(tempDir(), "r.jsonl"), { redact: () => "a\nb" }).then((bad) => bad.append({ x: 1 }))).rejects.toMatchObject({ code: "BENCH_REPORT_WRITE_FAILED" });
    await log.close();
    expect(readFileSync(path, "utf8")).toBe('{"detail":"key [REDACTED] leaked"}\n');
  });

  it("throws BENCH_REPORT_WRITE_FAILED when the directory does not exist", async () => {
    await expect(openResultsLog(join(tempDir(), "missing", "results.jsonl"))).rejects.toMatchObject({ code: "BENCH_REPORT_WRITE_FAILED" });
  });
});

describe("readResultsLog", () => {
  it("skips only an unterminated last line and reports it", async () => {
    const path = join(tempDir(), "results.jsonl");
    writeFileSync(path, '{"run":0}\n{"run":1}\n{"run":');
    expect(await readResultsLog(path)).toEqual({ rows: [{ run: 0 }, { run: 1 }], tornTail: true });
  });

  it("throws BENCH_REPORT_READ_FAILED for a corrupt complete line", async () => {
    const path = join(tempDir(), "results.jsonl");
    writeFileSync(path, '{"run":0}\n[1]\n');
    await expect(readResultsLog(path)).rejects.toMatchObject({ code: "BENCH_REPORT_READ_FAILED" });
  });
});

describe("readResultRows", () => {
  const current = (run: number): Record<string, unknown> => ({ ...JSON.parse(readFileSync(new URL("../test/fixtures/rows/current-row.json", import.meta.url), "utf8")), run });

  it("reads rows through the row contract: current rows in full, older rows with the fields they carry", async () => {
    const path = join(tempDir(), "results.jsonl");
    const old = { task: "t", arm: "baseline", class: "trivial", resolved: false, error_kind: "verify-failed", legacy_field: 1 };
    writeFileSync(path, `${JSON.stringify(current(0))}\n${JSON.stringify(old)}\n{"task":`);
    const read = await readResultRows(path);
    expect(read.tornTail).toBe(true);
    expect(read.rows[0]).toEqual(current(0));
    expect(read.rows[1]).toEqual({ task: "t", arm: "baseline", class: "trivial", resolved: false, error_kind: "verify-failed" });
  });

  it("throws BENCH_REPORT_READ_FAILED naming the line and field of a row the contract refuses", async () => {
    const path = join(tempDir(), "results.jsonl");
    writeFileSync(path, `${JSON.stringify(current(0))}\n${JSON.stringify({ ...current(1), error_kind: "timeout", resolved: false })}\n`);
    await expect(readResultRows(path)).rejects.toMatchObject({ code: "BENCH_REPORT_READ_FAILED", message: expect.stringContaining("line 2 field error_kind") });
  });
});
