import { describe, expect, it } from "vitest";
import { describeOracleUnavailable, redactPatch } from "./measure-cell.js";

const TOKEN = "sk-wfb-0123456789abcdef0123456789abcdef0123456789abcdef";

describe("redactPatch", () => {
  it("replaces the cell's token in a patch and keeps every other byte, non-UTF-8 ones included", () => {
    const head = Buffer.from("diff --git a/leak.txt b/leak.txt\n+", "latin1");
    const binary = Buffer.from([0xff, 0xfe, 0x80, 0x0a]);
    const patch = Buffer.concat([head, Buffer.from(`${TOKEN}\n+`, "latin1"), binary]);
    const out = redactPatch(patch, [TOKEN]);
    expect(out.toString("latin1")).not.toContain(TOKEN);
    expect(out.includes(Buffer.from("[REDACTED]\n+", "latin1"))).toBe(true);
    expect(out.subarray(out.length - binary.length)).toEqual(binary);
    expect(out.subarray(0, head.length)).toEqual(head);
  });

  it("returns the very same buffer when there is nothing to redact", () => {
    const patch = Buffer.from("diff --git a/x b/x\n+plain\n", "utf8");
    expect(redactPatch(patch, [TOKEN])).toBe(patch);
  });
});

function oracleError(code: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { code, ...extra });
}

describe("describeOracleUnavailable", () => {
  it.each([
    ["ORACLE_READ_FAILED", "EIO reading the snapshot"],
    ["ORACLE_STAGE_WRITE_FAILED", "ENOSPC writing the stage"],
    ["ORACLE_STAGE_INPUT_INVALID", "private root is not private"],
    ["ORACLE_RUN_INFRASTRUCTURE", "hidden oracle did not exit normally (state spawn-failed)"],
  ])("%s is an unavailable oracle, reason kept", (code, message) => {
    expect(describeOracleUnavailable(oracleError(code, message))).toBe(`${code}: ${message}`);
  });

  it.each(["ORACLE_STAGE_TAMPERED", "ORACLE_MOUNTPOINT_CHANGED", "ORACLE_STAGE_COLLISION", "ORACLE_CLEANUP_FAILED"])("%s is not (the candidate's or the harness's failure)", (code) => {
    expect(describeOracleUnavailable(oracleError(code, "x"))).toBeNull();
  });

  it("refuses anything that is not an oracle error", () => {
    expect(describeOracleUnavailable(Object.assign(new Error("EIO"), { code: "EIO" }))).toBeNull();
    expect(describeOracleUnavailable("ORACLE_READ_FAILED")).toBeNull();
  });
});
