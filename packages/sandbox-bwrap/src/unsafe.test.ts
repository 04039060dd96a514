import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as main from "./index.js";

describe("@wfbench/sandbox-bwrap/unsafe", () => {
  it("is the only entry that exports the host-unsafe backend", async () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { exports: Record<string, Record<string, string>> };
    expect(manifest.exports["./unsafe"]).toEqual({ "@wfbench/source": "./src/unsafe.ts", types: "./dist/unsafe.d.ts", default: "./dist/unsafe.js" });
    for (const name of ["createHostUnsafeBackend", "UNSAFE_NO_BWRAP", "UnsafeBackendRefusedError"]) expect(Object.keys(main)).not.toContain(name);
    // Through the package name, as a consumer resolves it (the export map and the source condition), not a file path.
    // eslint-disable-next-line @nx/enforce-module-boundaries -- the point of this test is the self-reference
    const unsafe = await import("@wfbench/sandbox-bwrap/unsafe");
    expect(unsafe.UNSAFE_NO_BWRAP).toBe("UNSAFE_NO_BWRAP");
    expect(() => unsafe.createHostUnsafeBackend({ acknowledge: unsafe.UNSAFE_NO_BWRAP, ci: "true", applyMode: false })).toThrow(unsafe.UnsafeBackendRefusedError);
  });
});
