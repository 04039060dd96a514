import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_REVIEW_BYTES } from "../src/constants.js";
import { parseReviewOutput } from "../src/parse-review-output.js";

const valid = JSON.stringify({ schema_version: 1, verdict: "approve", findings: [] });

function hasMkfifo(): boolean {
  try {
    execFileSync("mkfifo", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const required = process.env["CI"] === "true";
const mkfifoAvailable = hasMkfifo();

describe("parseReviewOutput(path)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "review-scoring-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads a regular file", () => {
    const file = join(dir, "review-output.json");
    writeFileSync(file, valid);
    expect(parseReviewOutput(file)).toEqual({ ok: true, value: { schema_version: 1, verdict: "approve", findings: [] } });
  });

  it("says the review was never written when the file is absent", () => {
    expect(parseReviewOutput(join(dir, "review-output.json"))).toMatchObject({
      ok: false,
      error: { code: "REVIEW_OUTPUT_MISSING", message: expect.stringContaining("was never written") },
    });
  });

  it("refuses a symlink to a valid file without following it", () => {
    const target = join(dir, "real.json");
    writeFileSync(target, valid);
    const link = join(dir, "review-output.json");
    symlinkSync(target, link);
    expect(parseReviewOutput(link)).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_SYMLINK" } });
  });

  it("refuses a dangling symlink as a symlink, not as missing", () => {
    const link = join(dir, "review-output.json");
    symlinkSync(join(dir, "nowhere"), link);
    expect(parseReviewOutput(link)).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_SYMLINK" } });
  });

  it("refuses a directory and a character device", () => {
    const sub = join(dir, "review-output.json");
    mkdirSync(sub);
    expect(parseReviewOutput(sub)).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_NOT_REGULAR", message: expect.stringContaining("directory") } });
    expect(parseReviewOutput("/dev/null")).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_NOT_REGULAR", message: expect.stringContaining("character device") } });
  });

  it("refuses a Unix socket as not regular, not as unreadable", async () => {
    const socket = join(dir, "review-output.json");
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socket, resolve);
    });
    try {
      expect(parseReviewOutput(socket)).toMatchObject({
        ok: false,
        error: { code: "REVIEW_OUTPUT_NOT_REGULAR", message: expect.stringContaining("socket") },
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("accepts a file of exactly 256 KiB", () => {
    const file = join(dir, "review-output.json");
    writeFileSync(file, valid + " ".repeat(MAX_REVIEW_BYTES - valid.length));
    expect(parseReviewOutput(file)).toMatchObject({ ok: true });
  });

  it.skipIf(!mkfifoAvailable && !required)("refuses a FIFO with no writer without blocking", () => {
    const fifo = join(dir, "review-output.json");
    execFileSync("mkfifo", [fifo]);
    expect(parseReviewOutput(fifo)).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_NOT_REGULAR", message: expect.stringContaining("FIFO") } });
  });

  it("refuses a file over 256 KiB and an empty file", () => {
    const big = join(dir, "big.json");
    writeFileSync(big, " ".repeat(MAX_REVIEW_BYTES + 1));
    expect(parseReviewOutput(big)).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_TOO_LARGE" } });
    const empty = join(dir, "empty.json");
    writeFileSync(empty, "");
    expect(parseReviewOutput(empty)).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_EMPTY", message: expect.stringContaining("is empty") } });
  });

  it("reports an unreadable path with the system reason", () => {
    const file = join(dir, "plain");
    writeFileSync(file, valid);
    expect(parseReviewOutput(join(file, "review-output.json"))).toMatchObject({
      ok: false,
      error: { code: "REVIEW_OUTPUT_UNREADABLE", message: expect.stringMatching(/unreadable: not a directory \(ENOTDIR\)/) },
    });
  });

  it("applies the content rules to file input as to bytes", () => {
    const file = join(dir, "review-output.json");
    writeFileSync(file, Buffer.from([0xff, 0xfe]));
    expect(parseReviewOutput(file)).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_NOT_UTF8" } });
  });
});
