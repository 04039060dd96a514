import { describe, expect, it } from "vitest";
import { BenchReportError, isBenchReportError } from "./errors.js";

describe("BenchReportError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new BenchReportError("BENCH_REPORT_WRITE_FAILED", "what happened", { cause });
    expect(error.code).toBe("BENCH_REPORT_WRITE_FAILED");
    expect(error.name).toBe("BenchReportError");
    expect(error.cause).toBe(cause);
    expect(isBenchReportError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    expect(isBenchReportError(Object.assign(new Error("x"), { code: "OTHER" }))).toBe(false);
  });
});
