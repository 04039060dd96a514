import { describe, expect, it } from "vitest";
import { createCellTokenRegistry } from "./cell-tokens.js";

describe("createCellTokenRegistry", () => {
  it("resolves a minted token to its cell until the cell is revoked", () => {
    const registry = createCellTokenRegistry();
    const a = registry.mintCellToken("cell-a");
    const b = registry.mintCellToken("cell-b");
    expect(a).toMatch(/^sk-wfb-[0-9a-f]{48}$/);
    expect(a).not.toBe(b);
    expect(registry.resolveToken(a)).toBe("cell-a");
    expect(registry.resolveToken(b)).toBe("cell-b");
    expect(registry.revokeCell("cell-a")).toBe(1);
    expect(registry.resolveToken(a)).toBeNull();
    expect(registry.resolveToken(b)).toBe("cell-b");
    expect(registry.revokeCell("cell-a")).toBe(0);
  });

  it("returns null for unknown and empty tokens and refuses blank cell ids", () => {
    const registry = createCellTokenRegistry();
    registry.mintCellToken("c");
    expect(registry.resolveToken("")).toBeNull();
    expect(registry.resolveToken("sk-wfb-guess")).toBeNull();
    expect(() => registry.mintCellToken("  ")).toThrow(TypeError);
  });
});
