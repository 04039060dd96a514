import { describe, expect, it } from "vitest";
import { computeOracleDigests } from "./compute-oracle-digests.js";
import { isOracleError } from "./errors.js";
import { oracleCommandIdentity } from "./oracle-mode.js";
import { createOracleSnapshot } from "./oracle-snapshot.js";

const FILES = [{ target: "x.oracle.test.mjs", payload: Buffer.from("expected\n") }];
const codeOf = (build: () => unknown): string | false => {
  try {
    build();
    return false;
  } catch (error) {
    return isOracleError(error) && error.code;
  }
};

describe("oracle digests and the mode", () => {
  it("leave an in-process oracle's digests exactly as reference §4.5 defines them, mode written or not", () => {
    const reference = computeOracleDigests("node --test x", FILES);
    expect(createOracleSnapshot("node --test x", FILES).binding).toEqual(reference);
    expect(createOracleSnapshot("node --test x", FILES, { mode: "in-process" }).binding).toEqual(reference);
  });

  it("bind a black-box oracle's mode and candidate command into every command-dependent digest", () => {
    const inProcess = createOracleSnapshot("node --test x", FILES).binding;
    const blackBox = createOracleSnapshot("node --test x", FILES, { mode: "black-box", candidate: "node probe.mjs" }).binding;
    const otherCandidate = createOracleSnapshot("node --test x", FILES, { mode: "black-box", candidate: "node probe2.mjs" }).binding;
    const otherCommand = createOracleSnapshot("node --test y", FILES, { mode: "black-box", candidate: "node probe.mjs" }).binding;
    for (const field of ["oracle_digest", "oracle_command_digest"] as const) {
      expect(new Set([inProcess[field], blackBox[field], otherCandidate[field], otherCommand[field]]).size).toBe(4);
    }
    // The files alone did not change: the manifest stays the same.
    expect(blackBox.oracle_manifest_digest).toBe(inProcess.oracle_manifest_digest);
  });

  it("never lets moving text between the candidate and the oracle command keep a digest", () => {
    expect(oracleCommandIdentity("b c", "black-box", "a")).not.toBe(oracleCommandIdentity("c", "black-box", "a b"));
    // No validated in-process command holds a NUL, so none can spell a black-box identity.
    expect(oracleCommandIdentity("x", "black-box", "y")).toContain("\0");
    expect(oracleCommandIdentity("x", "in-process", null)).toBe("x");
  });

  it.each([
    ["black-box without a candidate", { mode: "black-box" as const }],
    ["a candidate in-process", { candidate: "node probe.mjs" }],
    ["a candidate holding a NUL", { mode: "black-box" as const, candidate: "a\0b" }],
  ])("refuses a hand-built snapshot with %s", (_label, fields) => {
    expect(codeOf(() => createOracleSnapshot("true", FILES, fields))).toBe("ORACLE_SNAPSHOT_INVALID");
  });

  it("exposes the mode and candidate command, and keeps them out of JSON beside the digests", () => {
    const snapshot = createOracleSnapshot("true", FILES, { mode: "black-box", candidate: "node probe.mjs" });
    expect([snapshot.mode, snapshot.candidate]).toEqual(["black-box", "node probe.mjs"]);
    expect(createOracleSnapshot("true", FILES)).toMatchObject({ mode: "in-process", candidate: null });
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot.binding);
  });
});
