import { describe, expect, it } from "vitest";
import { DurableFsError, errnoOf, isDurableFsError, withErrno } from "./errors.js";

describe("DurableFsError", () => {
  it("carries its stable code, name, cause and line", () => {
    const cause = new Error("root cause");
    const error = new DurableFsError("DURABLE_FS_JSONL_CORRUPT", "what happened", { cause, line: 3 });
    expect(error).toMatchObject({ code: "DURABLE_FS_JSONL_CORRUPT", name: "DurableFsError", cause, line: 3 });
    expect(isDurableFsError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    expect(isDurableFsError(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe(false);
    expect(isDurableFsError("DURABLE_FS_EXISTS")).toBe(false);
  });

  it("reads an errno code, or says it has none", () => {
    expect(errnoOf(Object.assign(new Error("x"), { code: "ENOSPC" }))).toBe("ENOSPC");
    expect(errnoOf("nope")).toBe("unknown error");
    expect(withErrno(Object.assign(new Error("x"), { code: "EIO" }))).toEqual({ errno: "EIO" });
    expect(withErrno(new Error("short write"))).toEqual({});
  });
});
