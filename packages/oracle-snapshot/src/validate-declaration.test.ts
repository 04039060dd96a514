import { describe, expect, it } from "vitest";
import { validateOracleDeclaration } from "./validate-declaration.js";

const ok = {
  command: 'cd gitnexus && ./node_modules/.bin/vitest run "$GITNEXUS_BENCH_ORACLE_ROOT/x.oracle.test.ts"',
  files: [
    { source: "vitest.config.mts", target: "vitest.config.mts" },
    { source: "tasks/x.oracle.test.ts", target: "x.oracle.test.ts" },
  ],
};
const withFile = (file: unknown) => ({ ...ok, files: [file] });

describe("validateOracleDeclaration", () => {
  describe("a valid declaration", () => {
    it("returns it unchanged", () => {
      expect(validateOracleDeclaration("t1", ok)).toEqual({ ok: true, value: ok });
    });

    it("accepts a review task with one review-labels.json target", () => {
      const review = { command: 'test -s "$GITNEXUS_BENCH_REVIEW_OUTPUT"', files: [{ source: "r.labels.json", target: "review-labels.json" }] };
      expect(validateOracleDeclaration("r1", review, "review").ok).toBe(true);
    });

    it("accepts a black-box oracle with its candidate command, and an explicit in-process mode", () => {
      const blackBox = { ...ok, mode: "black-box", candidate: "node probe.mjs" };
      expect(validateOracleDeclaration("t1", blackBox)).toEqual({ ok: true, value: blackBox });
      expect(validateOracleDeclaration("t1", { ...ok, mode: "in-process" }).ok).toBe(true);
    });

    it("accepts the largest allowed command, path and file count", () => {
      const path = `${"p/".repeat(119)}x`; // 239 bytes
      const files = Array.from({ length: 8 }, (_, index) => ({ source: `s${index}`, target: `t${index}` }));
      expect(validateOracleDeclaration("t", { command: "x".repeat(8192), files }).ok).toBe(true);
      expect(validateOracleDeclaration("t", withFile({ source: `${path}y`, target: "t" })).ok).toBe(true);
    });
  });

  describe("refusals name the task, the field and the rule", () => {
    it.each([
      ["not a mapping", "nope", "oracle", "not-a-mapping"],
      ["a list", [], "oracle", "not-a-mapping"],
      ["an extra key", { ...ok, timeout: 5 }, "oracle", "unknown-key"],
      ["no command", { files: ok.files }, "oracle.command", "missing-key"],
      ["no files", { command: ok.command }, "oracle.files", "missing-key"],
      ["a numeric command", { ...ok, command: 5 }, "oracle.command", "not-a-string"],
      ["a blank command", { ...ok, command: " \n\t" }, "oracle.command", "command-blank"],
      ["an unknown mode", { ...ok, mode: "sandboxed" }, "oracle.mode", "mode-unknown"],
      ["black-box without a candidate", { ...ok, mode: "black-box" }, "oracle.candidate", "candidate-missing"],
      ["a candidate without black-box", { ...ok, candidate: "node probe.mjs" }, "oracle.candidate", "candidate-without-black-box"],
      ["a candidate in-process", { ...ok, mode: "in-process", candidate: "node probe.mjs" }, "oracle.candidate", "candidate-without-black-box"],
      ["a blank candidate", { ...ok, mode: "black-box", candidate: " " }, "oracle.candidate", "command-blank"],
      ["a candidate with a NUL", { ...ok, mode: "black-box", candidate: "a\0b" }, "oracle.candidate", "command-has-nul"],
      ["an overlong candidate", { ...ok, mode: "black-box", candidate: "x".repeat(8193) }, "oracle.candidate", "command-too-long"],
      ["a NUL in the command", { ...ok, command: "true\0" }, "oracle.command", "command-has-nul"],
      ["a command over 8 KiB", { ...ok, command: "é".repeat(4097) }, "oracle.command", "command-too-long"],
      ["files not a list", { ...ok, files: { source: "a", target: "b" } }, "oracle.files", "not-a-list"],
      ["no files listed", { ...ok, files: [] }, "oracle.files", "files-count"],
      [
        "nine files",
        { ...ok, files: Array.from({ length: 9 }, (_, i) => ({ source: `s${i}`, target: `t${i}` })) },
        "oracle.files",
        "files-count",
      ],
      ["a file entry with an extra key", withFile({ source: "a", target: "b", mode: 1 }), "oracle.files[0]", "unknown-key"],
      ["a file entry without target", withFile({ source: "a" }), "oracle.files[0].target", "missing-key"],
      ["a file entry that is a string", withFile("a"), "oracle.files[0]", "not-a-mapping"],
      ["an absolute source", withFile({ source: "/etc/passwd", target: "b" }), "oracle.files[0].source", "path-absolute"],
      ["a backslash", withFile({ source: "a\\b", target: "b" }), "oracle.files[0].source", "path-backslash"],
      ["a NUL in a path", withFile({ source: "a", target: "b\0" }), "oracle.files[0].target", "path-nul"],
      ["a .. part", withFile({ source: "a/../../b", target: "b" }), "oracle.files[0].source", "path-bad-part"],
      ["a . part", withFile({ source: "a", target: "./b" }), "oracle.files[0].target", "path-bad-part"],
      ["an empty part", withFile({ source: "a//b", target: "b" }), "oracle.files[0].source", "path-bad-part"],
      ["an empty path", withFile({ source: "", target: "b" }), "oracle.files[0].source", "path-bad-part"],
      ["a path of whitespace only", withFile({ source: "a", target: " \u0085" }), "oracle.files[0].target", "path-blank"],
      ["a trailing slash", withFile({ source: "a", target: "b/" }), "oracle.files[0].target", "path-bad-part"],
      ["a .git target", withFile({ source: "a", target: ".git/hooks/pre-commit" }), "oracle.files[0].target", "path-under-git"],
      ["a nested .GIT target", withFile({ source: "a", target: "x/.GIT/config" }), "oracle.files[0].target", "path-under-git"],
      ["a 241-byte path", withFile({ source: "a".repeat(241), target: "b" }), "oracle.files[0].source", "path-too-long"],
      [
        "a duplicate source",
        { ...ok, files: [{ source: "a", target: "x" }, { source: "a", target: "y" }] },
        "oracle.files[1].source",
        "duplicate-source",
      ],
      [
        "a duplicate target",
        { ...ok, files: [{ source: "a", target: "x" }, { source: "b", target: "x" }] },
        "oracle.files[1].target",
        "duplicate-target",
      ],
      [
        "a target under another target",
        { ...ok, files: [{ source: "a", target: "x" }, { source: "b", target: "x/y" }] },
        "oracle.files[0].target",
        "targets-overlap",
      ],
    ])("refuses %s", (_label, raw, field, rule) => {
      const result = validateOracleDeclaration("task-7", raw);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.task).toBe("task-7");
      expect(result.error.issues).toContainEqual(expect.objectContaining({ field, rule }));
      expect(result.error.message).toContain("task task-7");
      expect(result.error.message).toContain(result.error.issues[0]?.field ?? "?");
      expect(result.error.message).toContain(`rule ${result.error.issues[0]?.rule ?? "?"}`);
    });

    // reference.md §3.1: oracle paths must not start with `.git` — a string prefix, so `.github/…` and `.gitignore`
    // are refused too (the previous assertion here accepted them, which the reference contradicts).
    it.each([
      [".github/workflows/x.yml", "b", "oracle.files[0].source"],
      ["a", ".gitignore", "oracle.files[0].target"],
      ["a", ".gitattributes", "oracle.files[0].target"],
      [".git", "b", "oracle.files[0].source"],
    ])("refuses %s → %s, which starts with .git", (source, target, field) => {
      const result = validateOracleDeclaration("t", withFile({ source, target }));
      expect(result).toMatchObject({ ok: false, error: { issues: [{ field, rule: "path-under-git" }] } });
    });

    it("still allows a .git-like name that is not at the start", () => {
      expect(validateOracleDeclaration("t", withFile({ source: "a/.github/x", target: "x.gitignore" })).ok).toBe(true);
    });

    it.each([
      ["a lone high surrogate in a target", withFile({ source: "a", target: "x\ud800" }), "oracle.files[0].target", "path-not-unicode"],
      ["a lone low surrogate in a source", withFile({ source: "\udc00y", target: "b" }), "oracle.files[0].source", "path-not-unicode"],
      ["a lone surrogate in the command", { ...ok, command: "true \ud83d" }, "oracle.command", "command-not-unicode"],
    ])("refuses %s: it has no UTF-8 encoding, so its digest would be ambiguous", (_label, raw, field, rule) => {
      const result = validateOracleDeclaration("t", raw);
      expect(result).toMatchObject({ ok: false, error: { issues: [expect.objectContaining({ field, rule })] } });
    });

    it("refuses two targets that differ only in unpaired surrogates (both would stage as U+FFFD)", () => {
      const raw = { ...ok, files: [{ source: "a", target: "x\ud800" }, { source: "b", target: "x\udc00" }] };
      expect(validateOracleDeclaration("t", raw).ok).toBe(false);
    });

    it.each([
      ["file/group/record/unit separators", "\u001c\u001d\u001e\u001f"],
      ["NEL", "\u0085 "],
    ])("treats a command of only %s as blank, like the original's str.strip()", (_label, command) => {
      const result = validateOracleDeclaration("t", { ...ok, command });
      expect(result).toMatchObject({ ok: false, error: { issues: [{ field: "oracle.command", rule: "command-blank" }] } });
    });

    it("does not treat a byte-order mark as blank (the original's strip() keeps it)", () => {
      expect(validateOracleDeclaration("t", { ...ok, command: "\ufeff" }).ok).toBe(true);
    });

    it.each([
      ["no review-labels.json target", [{ source: "a", target: "labels.json" }]],
      ["only a nested review-labels.json target", [{ source: "a", target: "x/review-labels.json" }]],
    ])("refuses a review task with %s", (_label, files) => {
      const result = validateOracleDeclaration("r", { command: "true", files }, "review");
      expect(result).toMatchObject({ ok: false, error: { issues: [{ field: "oracle.files", rule: "review-labels-target" }] } });
    });

    it("refuses a black-box review task: reviews are scored against labels, no candidate command would run", () => {
      const files = [{ source: "a", target: "review-labels.json" }];
      const result = validateOracleDeclaration("r", { mode: "black-box", candidate: "true", command: "true", files }, "review");
      expect(result).toMatchObject({ ok: false, error: { issues: [{ field: "oracle.mode", rule: "review-black-box" }] } });
    });

    it("does not require labels for an implementation task", () => {
      expect(validateOracleDeclaration("i", { command: "true", files: [{ source: "a", target: "b" }] }).ok).toBe(true);
    });

    it("bounds echoed input in messages", () => {
      const result = validateOracleDeclaration("t".repeat(1000), { ...ok, ["k".repeat(1000)]: 1 });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message.length).toBeLessThan(600);
    });
  });
});
