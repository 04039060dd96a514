import { describe, expect, it } from "vitest";
import {
  SandboxError,
  SandboxPolicyError,
  SandboxPreflightError,
  SeccompUnsupportedArchError,
  UnsafeBackendRefusedError,
  isSandboxError,
} from "./errors.js";

describe("SandboxError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new SandboxError("SANDBOX_TEST", "what happened", { cause });
    expect(error.code).toBe("SANDBOX_TEST");
    expect(error.name).toBe("SandboxError");
    expect(error.cause).toBe(cause);
    expect(isSandboxError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isSandboxError(foreign)).toBe(false);
    expect(isSandboxError("SANDBOX_TEST")).toBe(false);
  });
});

describe("SandboxError subclasses", () => {
  it.each([
    [new SandboxPreflightError("SANDBOX_USERNS_DISABLED", "m", "bwrap: x"), "SandboxPreflightError", "SANDBOX_USERNS_DISABLED"],
    [new SandboxPolicyError("SANDBOX_POLICY_INVALID", "m"), "SandboxPolicyError", "SANDBOX_POLICY_INVALID"],
    [new SeccompUnsupportedArchError("riscv64"), "SeccompUnsupportedArchError", "SANDBOX_SECCOMP_UNSUPPORTED_ARCH"],
    [new UnsafeBackendRefusedError("m"), "UnsafeBackendRefusedError", "SANDBOX_UNSAFE_REFUSED"],
  ])("%s keeps name and code and is a SandboxError", (error, name, code) => {
    expect(error).toBeInstanceOf(SandboxError);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(isSandboxError(error)).toBe(true);
  });

  it("keeps bwrap's stderr on preflight errors and the arch on seccomp errors", () => {
    expect(new SandboxPreflightError("SANDBOX_PROC_MASKED", "m", "bwrap: Can't mount proc").stderrTail).toMatch(/mount proc/);
    const arch = new SeccompUnsupportedArchError("s390x");
    expect(arch.arch).toBe("s390x");
    expect(arch.message).toMatch(/refusing to run unfiltered/);
  });
});
