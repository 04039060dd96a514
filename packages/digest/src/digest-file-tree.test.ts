import { describe, expect, it } from "vitest";
import { digestFileTree } from "./digest-file-tree.js";
import { hashFrames } from "./sha256.js";

const file = (path: string, text: string) => ({ path, bytes: Buffer.from(text) });

describe("digestFileTree", () => {
  it("frames path then content per file (vector computed independently in Python)", () => {
    const tree = [file(".claude/skills/demo-work/notes/a.md", "a"), file(".claude/skills/demo-work/SKILL.md", "# work\n")];
    expect(digestFileTree(tree)).toBe("945297566a4fbad0046c06cca5bb6779a41567e834e93d2fcd057cc12818b405");
    expect(digestFileTree([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("is independent of input order and sorts by code point, as Python's sorted() does, not by UTF-16 unit", () => {
    const tree = [file("s/😀.md", "b"), file("s/！.md", "a"), file("s/B.md", "c")];
    const digest = digestFileTree(tree);
    expect(digestFileTree([...tree].reverse())).toBe(digest);
    expect(digest).toBe(hashFrames(["s/B.md", "c", "s/！.md", "a", "s/😀.md", "b"]));
    // The UTF-16 order (JavaScript's default sort) puts 😀 first and gives another digest.
    expect(tree.map((f) => f.path).sort()).toEqual(["s/B.md", "s/😀.md", "s/！.md"]);
    expect(digest).not.toBe(hashFrames(["s/B.md", "c", "s/😀.md", "b", "s/！.md", "a"]));
  });
});
