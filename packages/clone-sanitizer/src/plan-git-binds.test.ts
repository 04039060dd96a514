import { describe, expect, it } from "vitest";
import { planGitBinds } from "./plan-git-binds.js";

const roots = { writable: ["/w/templates", "/w/sources"], readOnly: ["/repos/a", "/repos/b"] };

describe("planGitBinds", () => {
  it("binds the cwd's root in its own mode and a clone source read-only", () => {
    const plan = planGitBinds("/w/templates/t1", ["-c", "core.hooksPath=/dev/null", "clone", "--", "/repos/a", "/w/templates/t1"], roots);
    expect(plan).toEqual({ ok: true, binds: [{ path: "/repos/a", mode: "ro" }, { path: "/w/templates", mode: "rw" }] });
  });

  it("binds a writable root read-only when git only reads it (plain-file source cloned into a template)", () => {
    const plan = planGitBinds("/w/templates/t1", ["clone", "/w/sources/abc", "/w/templates/t1"], roots);
    expect(plan.ok && plan.binds).toEqual([
      { path: "/w/sources", mode: "ro" },
      { path: "/w/templates", mode: "rw" },
    ]);
  });

  it("grants nothing an argument names outside every root, and no unrelated root", () => {
    const plan = planGitBinds("/repos/b", ["hash-object", "/etc/shadow", "--git-dir=/elsewhere/.git"], roots);
    expect(plan).toEqual({ ok: true, binds: [{ path: "/repos/b", mode: "ro" }] });
  });

  it("picks the deepest root and orders nested binds shallow first", () => {
    const nested = { writable: ["/w"], readOnly: ["/w/repo"] };
    expect(planGitBinds("/w/repo/sub", [], nested)).toEqual({ ok: true, binds: [{ path: "/w/repo", mode: "ro" }] });
    expect(planGitBinds("/w/t", ["clone", "/w/repo/", "/w/t"], nested)).toEqual({
      ok: true,
      binds: [{ path: "/w", mode: "rw" }, { path: "/w/repo", mode: "ro" }],
    });
  });

  it("does not treat a sibling with a shared prefix as inside a root", () => {
    expect(planGitBinds("/repos/abc", [], roots).ok).toBe(false);
  });

  it("refuses a relative or ungranted cwd", () => {
    expect(planGitBinds("repos/a", [], roots)).toMatchObject({ ok: false, reason: expect.stringMatching(/not absolute/) });
    expect(planGitBinds("/tmp", [], roots)).toMatchObject({ ok: false, reason: expect.stringMatching(/no granted root/) });
  });

  it("makes a path listed both writable and read-only read-only", () => {
    expect(planGitBinds("/x", [], { writable: ["/x"], readOnly: ["/x"] })).toEqual({ ok: true, binds: [{ path: "/x", mode: "ro" }] });
  });
});
