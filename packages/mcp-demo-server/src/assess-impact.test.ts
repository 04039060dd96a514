import { describe, expect, it } from "vitest";
import { assessImpact } from "./assess-impact.js";

describe("assessImpact", () => {
  it("groups mentions per file in order and names the test files", () => {
    const refs = ["src/a.js", "src/a.js", "test/a.test.js", "lib/b.spec.ts", "docs/tests.md", "pkg/__tests__/x.js"].map((path, line) => ({ path, line, text: "" }));
    expect(assessImpact(refs)).toEqual({
      files: [
        { path: "src/a.js", mentions: 2, test: false },
        { path: "test/a.test.js", mentions: 1, test: true },
        { path: "lib/b.spec.ts", mentions: 1, test: true },
        { path: "docs/tests.md", mentions: 1, test: false },
        { path: "pkg/__tests__/x.js", mentions: 1, test: true },
      ],
      tests: ["test/a.test.js", "lib/b.spec.ts", "pkg/__tests__/x.js"],
    });
    expect(assessImpact([])).toEqual({ files: [], tests: [] });
  });
});
