import { describe, expect, it } from "vitest";
import { isOracleError } from "./errors.js";
import { createOracleSnapshot } from "./oracle-snapshot.js";

const codeOf = (build: () => unknown): string | false => {
  try {
    build();
    return false;
  } catch (error) {
    return isOracleError(error) && error.code;
  }
};

describe("createOracleSnapshot", () => {
  // Staging joins targets under the private stage: a target the declaration rules would refuse must never get
  // that far, even when a caller builds a snapshot by hand.
  it.each([
    ["a parent part", "../escape.ts"],
    ["an absolute path", "/etc/cron.d/x"],
    ["an empty part", "a//b"],
    ["a .git part", "x/.git/config"],
    ["a lone surrogate", "x\ud800"],
    ["a backslash", "a\\b"],
  ])("refuses a target with %s", (_label, target) => {
    expect(codeOf(() => createOracleSnapshot("true", [{ target, payload: Buffer.from("x") }]))).toBe(
      "ORACLE_SNAPSHOT_INVALID",
    );
  });

  it("refuses a duplicate target", () => {
    const file = { target: "a", payload: Buffer.from("x") };
    expect(codeOf(() => createOracleSnapshot("true", [file, file]))).toBe("ORACLE_SNAPSHOT_INVALID");
  });

  it("copies payloads on the way in: changing the caller's buffer changes nothing", () => {
    const payload = Buffer.from("abc");
    const snapshot = createOracleSnapshot("true", [{ target: "a", payload }]);
    payload.fill(0);
    expect(snapshot.readFile("a").toString()).toBe("abc");
    expect(snapshot.matches("a", Buffer.from("abc"))).toBe(true);
    expect(snapshot.matches("b", Buffer.from("abc"))).toBe(false);
    expect(codeOf(() => snapshot.readFile("b"))).toBe("ORACLE_UNKNOWN_TARGET");
  });
});
