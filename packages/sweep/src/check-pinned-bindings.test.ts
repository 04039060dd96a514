import { describe, expect, it } from "vitest";
import type { TaskDefinitionBinding } from "@wfbench/task-suite";
import { findTargetBaseDrift, findTaskBindingDrift } from "./check-pinned-bindings.js";

const HEX = "a".repeat(64);
const BINDING: TaskDefinitionBinding = {
  id: "t", class: "c", repo_identity: "/repo", ref: "HEAD", prompt_digest: HEX, setup_digest: HEX, verify_digest: HEX, expensive: false, sandbox_copy: [], sandbox_dependencies: [],
  sandbox_dependency_content_digest: HEX, sandbox_dependency_manifest_digest: HEX, oracle_digest: HEX, oracle_command_digest: HEX, oracle_manifest_digest: HEX,
  oracle_files: [{ target: "o.mjs", sha256: HEX, size: 3 }], resolved_sha: "b".repeat(40),
};

describe("findTaskBindingDrift", () => {
  it("accepts pins equal to the recomputed bindings, key order aside", () => {
    expect(findTaskBindingDrift([Object.fromEntries(Object.entries(BINDING).reverse())], [BINDING])).toBeNull();
  });
  it("names the task and the field that drifted", () => {
    expect(findTaskBindingDrift([{ ...BINDING, prompt_digest: "c".repeat(64) }], [BINDING])).toMatch(/^task "t" field prompt_digest: /u);
    expect(findTaskBindingDrift([{ ...BINDING, oracle_files: [] }], [BINDING])).toMatch(/field oracle_files/u);
    expect(findTaskBindingDrift([{ ...BINDING, extra: 1 }], [BINDING])).toMatch(/field extra/u);
  });
  it("refuses a pin holding 1e400 instead of comparing its Infinity equal to an absent (null) field", () => {
    const pinned = JSON.parse(`[${JSON.stringify(BINDING).slice(0, -1)},"extra":1e400}]`) as unknown;
    expect(findTaskBindingDrift(pinned, [BINDING])).toMatch(/^--task-bindings-json 0\.extra: Infinity is not a JSON number/u);
  });
  it("refuses a pin nested too deeply to compare, instead of overflowing the stack", () => {
    const pinned = JSON.parse(`[${JSON.stringify(BINDING).slice(0, -1)},"extra":${"[".repeat(100_000)}${"]".repeat(100_000)}}]`) as unknown;
    expect(findTaskBindingDrift(pinned, [BINDING])).toMatch(/^--task-bindings-json 0\.extra\.0\.0\.0\.0\.0\.0: nests more than 5,000 levels/u);
  });
  it("refuses a missing, extra or duplicated pin and a malformed list", () => {
    expect(findTaskBindingDrift([], [BINDING])).toMatch(/no pin for selected task "t"/u);
    expect(findTaskBindingDrift([BINDING, { ...BINDING, id: "u" }], [BINDING])).toMatch(/does not select: u/u);
    expect(findTaskBindingDrift([BINDING, BINDING], [BINDING])).toMatch(/twice/u);
    expect(findTaskBindingDrift({ id: "t" }, [BINDING])).toMatch(/JSON list/u);
  });
});

describe("findTargetBaseDrift", () => {
  it("accepts an equal map and names the first differing or missing target", () => {
    expect(findTargetBaseDrift({ ".claude/skills/w/SKILL.md": HEX }, { ".claude/skills/w/SKILL.md": HEX })).toBeNull();
    expect(findTargetBaseDrift({ ".claude/skills/w/SKILL.md": "c".repeat(64) }, { ".claude/skills/w/SKILL.md": HEX })).toMatch(/target \.claude\/skills\/w\/SKILL\.md/u);
    expect(findTargetBaseDrift({}, { "x.md": HEX })).toMatch(/target x\.md: pinned \(absent\)/u);
    expect(findTargetBaseDrift(["x"], {})).toMatch(/JSON object/u);
  });
});
