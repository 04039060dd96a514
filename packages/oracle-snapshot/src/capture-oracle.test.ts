import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureOracle } from "./capture-oracle.js";
import { computeOracleDigests } from "./compute-oracle-digests.js";
import { isOracleError } from "./errors.js";
import type { OracleDeclaration } from "./schema.js";

let root: string;
let outside: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "oracle-capture-"));
  outside = await mkdtemp(join(tmpdir(), "oracle-outside-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const declare = (...files: [string, string][]): OracleDeclaration => ({
  command: "run-oracle",
  files: files.map(([source, target]) => ({ source, target })),
});

describe("captureOracle", () => {
  describe("regular sources", () => {
    it("captures bytes, targets and the digests of the reference", async () => {
      await mkdir(join(root, "tasks"));
      await writeFile(join(root, "vitest.config.mts"), "config\n");
      await writeFile(join(root, "tasks", "a.test.ts"), Buffer.from([0, 255, 10]));
      const result = await captureOracle(
        declare(["vitest.config.mts", "vitest.config.mts"], ["tasks/a.test.ts", "a.oracle.test.ts"]),
        root,
      );
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const snapshot = result.value;
      expect(snapshot.readFile("a.oracle.test.ts")).toEqual(Buffer.from([0, 255, 10]));
      expect(snapshot.readFile("vitest.config.mts").toString()).toBe("config\n");
      expect(snapshot.binding).toEqual(
        computeOracleDigests("run-oracle", [
          { target: "vitest.config.mts", payload: Buffer.from("config\n") },
          { target: "a.oracle.test.ts", payload: Buffer.from([0, 255, 10]) },
        ]),
      );
      expect(snapshot.files.map((file) => file.target)).toEqual(["a.oracle.test.ts", "vitest.config.mts"]);
    });

    it("is unaffected by changes to the oracles root after capture", async () => {
      await writeFile(join(root, "t.ts"), "original");
      const result = await captureOracle(declare(["t.ts", "t.ts"]), root);
      if (!result.ok) throw new Error(result.error.message);
      const before = result.value.binding;
      await writeFile(join(root, "t.ts"), "tampered after capture");
      await rm(join(root, "t.ts"));
      await symlink("/etc/passwd", join(root, "t.ts"));
      expect(result.value.readFile("t.ts").toString()).toBe("original");
      expect(result.value.binding).toEqual(before);
    });

    it("hands out copies: changing a returned buffer does not change the snapshot", async () => {
      await writeFile(join(root, "t.ts"), "abc");
      const result = await captureOracle(declare(["t.ts", "t.ts"]), root);
      if (!result.ok) throw new Error(result.error.message);
      result.value.readFile("t.ts").fill(0);
      expect(result.value.readFile("t.ts").toString()).toBe("abc");
      expect(Object.isFrozen(result.value)).toBe(true);
      expect(Object.isFrozen(result.value.files[0])).toBe(true);
    });

    it("never shows hidden bytes in JSON or inspection", async () => {
      await writeFile(join(root, "t.ts"), "HIDDEN-ORACLE-SECRET");
      const result = await captureOracle(declare(["t.ts", "t.ts"]), root);
      if (!result.ok) throw new Error(result.error.message);
      expect(JSON.stringify(result.value)).not.toContain("HIDDEN-ORACLE-SECRET");
      expect(inspect(result.value, { depth: 10, showHidden: true })).not.toContain("HIDDEN-ORACLE-SECRET");
      expect(JSON.parse(JSON.stringify(result.value))).toEqual(result.value.binding);
    });

    it("accepts exactly 512 KiB per file and 2 MiB in all", async () => {
      const files: [string, string][] = [];
      for (let index = 0; index < 4; index += 1) {
        await writeFile(join(root, `f${index}`), Buffer.alloc(512 * 1024, index));
        files.push([`f${index}`, `f${index}`]);
      }
      const result = await captureOracle(declare(...files), root);
      expect(result.ok).toBe(true);
    });
  });

  describe("refusals", () => {
    const refusal = async (declaration: OracleDeclaration) => {
      const result = await captureOracle(declaration, root);
      if (result.ok) throw new Error("expected a refusal");
      return result.error;
    };

    it("refuses a missing source", async () => {
      expect(await refusal(declare(["nope.ts", "t"]))).toMatchObject({
        field: "oracle.files[0].source",
        rule: "source-missing",
      });
    });

    it("refuses a symlinked source even when it points inside the root", async () => {
      await writeFile(join(root, "real.ts"), "x");
      await symlink("real.ts", join(root, "link.ts"));
      expect(await refusal(declare(["link.ts", "t"]))).toMatchObject({ rule: "source-symlink" });
    });

    it("refuses escaping through a symlinked directory", async () => {
      await writeFile(join(outside, "secret"), "outside the root");
      await symlink(outside, join(root, "dir"));
      expect(await refusal(declare(["dir/secret", "t"]))).toMatchObject({ rule: "source-symlink" });
    });

    it("refuses a directory and a path through a file", async () => {
      await mkdir(join(root, "dir"));
      await writeFile(join(root, "file"), "x");
      expect(await refusal(declare(["dir", "t"]))).toMatchObject({ rule: "source-not-regular" });
      expect(await refusal(declare(["file/x", "t"]))).toMatchObject({ rule: "source-not-regular" });
    });

    it("refuses a file over 512 KiB", async () => {
      await writeFile(join(root, "big"), Buffer.alloc(512 * 1024 + 1));
      expect(await refusal(declare(["big", "t"]))).toMatchObject({ rule: "file-too-large" });
    });

    it("refuses more than 2 MiB in all and names the file that crossed it", async () => {
      const files: [string, string][] = [];
      for (let index = 0; index < 5; index += 1) {
        await writeFile(join(root, `f${index}`), Buffer.alloc(450 * 1024));
        files.push([`f${index}`, `f${index}`]);
      }
      expect(await refusal(declare(...files))).toMatchObject({
        field: "oracle.files[4].source",
        rule: "total-too-large",
      });
    });

    it("refuses a declaration that was never validated", async () => {
      const raw = { command: "x", files: [{ source: "../escape", target: "t" }] };
      expect(await refusal(raw)).toMatchObject({ rule: "declaration-invalid" });
    });

    it("throws ORACLE_READ_FAILED when the oracles root is missing", async () => {
      const error: unknown = await captureOracle(declare(["a", "a"]), join(root, "missing")).catch((e: unknown) => e);
      expect(isOracleError(error) && error.code).toBe("ORACLE_READ_FAILED");
    });
  });
});
