import { describe, expect, it } from "vitest";
import { computeOracleDigests } from "./compute-oracle-digests.js";

// Vectors computed with Python's hashlib and struct.pack(">Q", n) straight from the reference definitions.
const COMMAND =
  'cd gitnexus && ./node_modules/.bin/vitest run --config "$GITNEXUS_BENCH_ORACLE_ROOT/vitest.config.mts"';
const CONFIG = Buffer.from("export default {};\n");
const TEST = Buffer.from("test('x', () => {});\n");

describe("computeOracleDigests", () => {
  it("matches hand-computed vectors for command, manifest and full digest", () => {
    const binding = computeOracleDigests(COMMAND, [
      { target: "vitest.config.mts", payload: CONFIG },
      { target: "a.oracle.test.ts", payload: TEST },
    ]);
    expect(binding).toEqual({
      oracle_command_digest: "60936a84319cab1c877e5f14bed3817d7478fbb47ef419ffa1e7696fb7d1a8da",
      oracle_manifest_digest: "c7cd13571b9eeea90b9d9acda33c852ab70a98444f030d2f3d851ec3fb917513",
      oracle_digest: "e17406cb881bd1482daab51685485f918ee1f301fd365bb2bdcac1f33c3d3748",
      oracle_files: [
        {
          target: "a.oracle.test.ts",
          sha256: "84477cffd9f3d6a7fd4c504a00ecfbee0922c2db7772fe40fdf25b7b0c889e8e",
          size: 21,
        },
        {
          target: "vitest.config.mts",
          sha256: "450f0af4f4c1ecc4c7180f2e364c8a59bfed69dd350fb6b47bce8641c2a37786",
          size: 19,
        },
      ],
    });
  });

  it("sorts by code point like the original, not by UTF-16 units", () => {
    const binding = computeOracleDigests("true", [
      { target: "😀.json", payload: Buffer.from("22") },
      { target: "ﬁ.json", payload: Buffer.from("1") },
    ]);
    expect(binding.oracle_files.map((file) => file.target)).toEqual(["ﬁ.json", "😀.json"]);
    expect(binding.oracle_digest).toBe("6035777b47d981ee473b7a4c41becfd33a93e68ea9d8f63f1033304a0822b5d7");
    expect(binding.oracle_manifest_digest).toBe("a924b0137b3895e6133d7ea864f490267e94b860cc29801c0b9b70e9f7603c0e");
  });

  it("does not depend on input order but does depend on every byte and target", () => {
    const files = [
      { target: "b", payload: Buffer.from("1") },
      { target: "a", payload: Buffer.from("2") },
    ];
    const base = computeOracleDigests("cmd", files);
    expect(computeOracleDigests("cmd", [...files].reverse())).toEqual(base);
    const swapped = computeOracleDigests("cmd", [
      { target: "b", payload: Buffer.from("2") },
      { target: "a", payload: Buffer.from("1") },
    ]);
    expect(swapped.oracle_digest).not.toBe(base.oracle_digest);
    expect(swapped.oracle_manifest_digest).not.toBe(base.oracle_manifest_digest);
    expect(computeOracleDigests("cmd2", files).oracle_manifest_digest).toBe(base.oracle_manifest_digest);
    expect(computeOracleDigests("cmd2", files).oracle_digest).not.toBe(base.oracle_digest);
  });
});
