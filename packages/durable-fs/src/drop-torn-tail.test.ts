import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dropTornTail } from "./jsonl-log.js";

const dir = mkdtempSync(join(tmpdir(), "wfbench-torn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("dropTornTail", () => {
  it("drops only the bytes after the last newline and keeps every complete line", async () => {
    const path = join(dir, "a.jsonl");
    writeFileSync(path, '{"a":1}\n{"b":2}\n{"c":');
    expect(await dropTornTail(path)).toBe('{"c":');
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n{"b":2}\n');
    expect(await dropTornTail(path)).toBeNull();
  });
  it("empties a log whose only line is torn, and leaves a missing log alone", async () => {
    const path = join(dir, "b.jsonl");
    writeFileSync(path, '{"a"');
    expect(await dropTornTail(path)).toBe('{"a"');
    expect(readFileSync(path, "utf8")).toBe("");
    expect(await dropTornTail(join(dir, "missing.jsonl"))).toBeNull();
  });
  it("refuses a log that is a symlink", async () => {
    writeFileSync(join(dir, "real.jsonl"), "x");
    symlinkSync(join(dir, "real.jsonl"), join(dir, "link.jsonl"));
    await expect(dropTornTail(join(dir, "link.jsonl"))).rejects.toMatchObject({ code: "DURABLE_FS_WRITE_FAILED" });
    expect(readFileSync(join(dir, "real.jsonl"), "utf8")).toBe("x");
  });
});
