import { describe, expect, it } from "vitest";
import { formatIssuePath } from "./format-issue-path.js";

describe("formatIssuePath", () => {
  it("renders keys with dots and indexes in brackets, the root as (root)", () => {
    expect(formatIssuePath(["neutralize", 0, "path"])).toBe("neutralize[0].path");
    expect(formatIssuePath([2, "a"])).toBe("[2].a");
    expect(formatIssuePath([])).toBe("(root)");
  });

  it("continues a prefix", () => {
    expect(formatIssuePath(["files", 0, "source"], "oracle")).toBe("oracle.files[0].source");
    expect(formatIssuePath([1], "decisions")).toBe("decisions[1]");
    expect(formatIssuePath([], "bindings")).toBe("bindings");
  });
});
