import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadTaskSuite, parseTaskSuite } from "./load-task-suite.js";
import { MAX_TASK_FILE_BYTES } from "./parse-suite-yaml.js";

const ORACLE = { command: 'node --test "$WFBENCH_ORACLE_ROOT/x.oracle.test.mjs"', files: [{ source: "demo/x.oracle.test.mjs", target: "x.oracle.test.mjs" }] };
const TASK = { id: "add-clamp", class: "trivial", repo: "demo/repos/mathlib", prompt: "Add clamp.", verify: "node --test test/", oracle: ORACLE };

function parse(tasks: unknown[], extra: Record<string, unknown> = {}, options = {}) {
  return parseTaskSuite(stringify({ tasks, ...extra }), "/suite/demo.yaml", "/suite", options);
}

describe("parseTaskSuite", () => {
  describe("a valid suite", () => {
    it("resolves repo against the file's directory and fills the defaults", () => {
      const result = parse([TASK]);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const task = result.value.tasks[0];
      expect(task?.repo).toBe("/suite/demo/repos/mathlib");
      expect(task?.ref).toBe("HEAD");
      expect(task?.expensive).toBe(false);
      expect(task?.setup).toBeNull();
      expect(task?.oracle.files[0]?.target).toBe("x.oracle.test.mjs");
      expect(result.value.skills).toEqual({ plan: "gitnexus-plan", work: "gitnexus-work", review: "gitnexus-review" });
    });

    it("keeps a black-box oracle's mode and candidate command", () => {
      const result = parse([{ ...TASK, oracle: { mode: "black-box", candidate: "node probe.mjs", ...ORACLE } }]);
      expect(result.ok && result.value.tasks[0]?.oracle).toMatchObject({ mode: "black-box", candidate: "node probe.mjs", command: ORACLE.command });
    });

    it("takes the suite's skill names and leaves expensive tasks out unless asked", () => {
      const tasks = [TASK, { ...TASK, id: "big", expensive: true }];
      const result = parse(tasks, { skills: { plan: "demo-plan", work: "demo-work" } });
      expect(result.ok && result.value.selected.map((t) => t.id)).toEqual(["add-clamp"]);
      expect(result.ok && result.value.skippedExpensive).toEqual(["big"]);
      expect(result.ok && result.value.skills.work).toBe("demo-work");
      const all = parse(tasks, {}, { includeExpensive: true });
      expect(all.ok && all.value.selected.map((t) => t.id)).toEqual(["add-clamp", "big"]);
    });

    // Python's str.strip() keeps U+FEFF (JavaScript's \s would strip it), and the original harness only refused
    // fields that strip() empties; U+0085 and U+001C are Python whitespace that String#trim keeps.
    it("treats a field of U+FEFF as content, not blank, like Python's str.strip()", () => {
      const result = parse([{ ...TASK, verify: "\uFEFF" }]);
      expect(result.ok && result.value.tasks[0]?.verify).toBe("\uFEFF");
      const blank = parse([{ ...TASK, verify: "\u0085\u001c " }]);
      expect(!blank.ok && blank.error.field).toBe("verify");
    });

    it("takes MCP servers in file order with mount sources resolved against the file's directory", () => {
      const servers = [
        { name: "wfbench-demo", command: "/opt/claude/node", args: ["/opt/mcp/demo/bin.mjs", "--root", "/workspace"], mounts: [{ source: "build/demo", target: "/opt/mcp/demo" }] },
        { name: "gitnexus", command: "/opt/mcp/gitnexus/bin/gitnexus" },
      ];
      const result = parse([TASK], { mcp_servers: servers });
      expect(result.ok && result.value.mcpServers).toEqual([
        { ...servers[0], mounts: [{ source: "/suite/build/demo", target: "/opt/mcp/demo" }] },
        { name: "gitnexus", command: "/opt/mcp/gitnexus/bin/gitnexus", args: [], mounts: [] },
      ]);
      const none = parse([TASK]);
      expect(none.ok && none.value.mcpServers).toEqual([]);
      expect(none.ok && none.value.indexBuilder).toBeNull();
    });

    it("takes an index builder with its output path and mounts resolved against the file's directory", () => {
      const server = { name: "gitnexus", command: "/opt/mcp/gitnexus/bin/gitnexus", args: ["mcp"] };
      const builder = { command: "/opt/mcp/gitnexus/bin/gitnexus", args: ["analyze", "/workspace"], output: ".gitnexus-index", mounts: [{ source: "gn", target: "/opt/mcp/gitnexus" }] };
      const result = parse([TASK], { mcp_servers: [server], index_builder: builder });
      expect(result.ok && result.value.indexBuilder).toEqual({ ...builder, mounts: [{ source: "/suite/gn", target: "/opt/mcp/gitnexus" }] });
    });

    it("expands ~ only with a known home directory", () => {
      const withHome = parse([{ ...TASK, repo: "~/src/x" }], {}, { homeDir: "/home/u" });
      expect(withHome.ok && withHome.value.tasks[0]?.repo).toBe("/home/u/src/x");
      const without = parse([{ ...TASK, repo: "~/src/x" }]);
      expect(without.ok).toBe(false);
      expect(!without.ok && without.error.field).toBe("repo");
    });
  });

  describe("refusals name the task, the field and the fix", () => {
    it("refuses an index builder without MCP servers, or one writing into a harness path", () => {
      const builder = { command: "/x", output: "idx" };
      const alone = parse([TASK], { index_builder: builder });
      expect(!alone.ok && alone.error.field).toBe("index_builder");
      const hidden = parse([TASK], { mcp_servers: [{ name: "a", command: "/x" }], index_builder: { ...builder, output: "eval/workflow_bench/x" } });
      expect(!hidden.ok && hidden.error.field).toBe("index_builder.output");
      const escaping = parse([TASK], { mcp_servers: [{ name: "a", command: "/x" }], index_builder: { ...builder, output: "../idx" } });
      expect(!escaping.ok && escaping.error.field).toBe("index_builder.output");
    });

    it("refuses a duplicate MCP server name and overlapping mount targets", () => {
      const one = { name: "a", command: "/x", mounts: [{ source: "s", target: "/opt/mcp/a" }] };
      const twice = parse([TASK], { mcp_servers: [one, { ...one, mounts: [] }] });
      expect(!twice.ok && twice.error).toMatchObject({ task: null, field: "mcp_servers[1].name" });
      const overlap = parse([TASK], { mcp_servers: [one, { name: "b", command: "/x", mounts: [{ source: "t", target: "/opt/mcp/a/sub" }] }] });
      expect(!overlap.ok && overlap.error.field).toBe("mcp_servers[1].mounts[0].target");
      expect(!overlap.ok && overlap.error.message).toContain("Fix: list mappings");
    });

    it.each([
      ["a blank verify", { ...TASK, verify: "  " }, "add-clamp", "verify", /blank/],
      ["a missing prompt", { ...TASK, prompt: undefined }, "add-clamp", "prompt", /string/],
      ["a string expensive", { ...TASK, expensive: "true" }, "add-clamp", "expensive", /true or false/],
      ["a numeric expensive", { ...TASK, expensive: 1 }, "add-clamp", "expensive", /true or false/],
      ["a bad id", { ...TASK, id: "-bad id" }, "-bad id", "id", /must match/],
      ["an unknown key", { ...TASK, timeout: 5 }, "add-clamp", "timeout", /unknown key/],
      ["a missing oracle", { ...TASK, oracle: undefined }, "add-clamp", "oracle", /required/],
      ["an oracle with an extra key", { ...TASK, oracle: { ...ORACLE, labels: 1 } }, "add-clamp", "oracle", /./],
      ["an oracle target escaping", { ...TASK, oracle: { ...ORACLE, files: [{ source: "a", target: "../x" }] } }, "add-clamp", "oracle.files[0].target", /./],
      ["a candidate command without black-box mode", { ...TASK, oracle: { ...ORACLE, candidate: "node probe.mjs" } }, "add-clamp", "oracle.candidate", /black-box/],
      ["black-box mode without a candidate command", { ...TASK, oracle: { ...ORACLE, mode: "black-box" } }, "add-clamp", "oracle.candidate", /required/],
      ["an unknown oracle mode", { ...TASK, oracle: { ...ORACLE, mode: "sandboxed" } }, "add-clamp", "oracle.mode", /in-process/],
      [
        "a black-box review task",
        { ...TASK, oracle: { mode: "black-box", candidate: "true", command: "true", files: [{ source: "l.json", target: "review-labels.json" }] } },
        "add-clamp",
        "oracle.mode",
        /review/,
      ],
      ["an absolute sandbox_copy", { ...TASK, sandbox_copy: ["/etc/passwd"] }, "add-clamp", "sandbox_copy[0]", /relative/],
      ["a .git sandbox_copy", { ...TASK, sandbox_copy: [".git/config"] }, "add-clamp", "sandbox_copy[0]", /\.git/],
      ["a dependency target in .git (any case)", { ...TASK, sandbox_dependencies: [{ source: "a", target: ".Git/hooks" }] }, "add-clamp", "sandbox_dependencies[0].target", /\.git/],
      ["overlapping sandbox_copy", { ...TASK, sandbox_copy: ["a", "a/b"] }, "add-clamp", "sandbox_copy[1]", /overlaps/],
      ["a harness sandbox_copy", { ...TASK, sandbox_copy: ["eval/workflow_bench/oracles/x"] }, "add-clamp", "sandbox_copy[0]", /harness/],
      ["a dependency with an extra key", { ...TASK, sandbox_dependencies: [{ source: "a", target: "a", mode: 1 }] }, "add-clamp", "sandbox_dependencies[0].mode", /unknown key/],
      ["overlapping dependency targets", { ...TASK, sandbox_dependencies: [{ source: "a", target: "n" }, { source: "b", target: "n/m" }] }, "add-clamp", "sandbox_dependencies[1].target", /overlaps/],
    ])("refuses %s", (_name, entry, task, field, message) => {
      const result = parse([entry]);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.task).toBe(task);
      expect(result.error.field.startsWith(field)).toBe(true);
      expect(result.error.message).toMatch(message);
      expect(result.error.message).toContain(`task ${JSON.stringify(task)}`);
      expect(result.error.message).toContain(`field ${result.error.field}`);
      expect(result.error.fix.length).toBeGreaterThan(10);
      expect(result.error.message).toContain(`Fix: ${result.error.fix}`);
    });

    it("refuses a duplicate id, naming the earlier entry", () => {
      const result = parse([TASK, { ...TASK }]);
      expect(!result.ok && result.error).toMatchObject({ task: "add-clamp", field: "id" });
      expect(!result.ok && result.error.message).toContain("duplicate of tasks[0]");
    });

    it("labels a task without a usable id by its position", () => {
      const result = parse([TASK, { ...TASK, id: undefined }]);
      expect(!result.ok && result.error).toMatchObject({ task: "tasks[1]", field: "id" });
    });

    it.each([
      ["a list at the top", "- 1\n", "tasks"],
      ["an empty task list", "tasks: []\n", "tasks"],
      ["an unknown top-level key", "tasks: [1]\nextra: 1\n", "extra"],
      ["invalid YAML", "tasks: [\n", "tasks"],
      ["a duplicate YAML key", "tasks: []\ntasks: []\n", "tasks"],
      ["bad skill names", "tasks: [1]\nskills: {plan: '../x', work: w}\n", "skills.plan"],
      ["an MCP server name with __", "tasks: [1]\nmcp_servers: [{name: a__b, command: /x}]\n", "mcp_servers[0].name"],
      ["a relative MCP command", "tasks: [1]\nmcp_servers: [{name: a, command: node}]\n", "mcp_servers[0].command"],
      ["an MCP mount outside /opt/mcp", "tasks: [1]\nmcp_servers: [{name: a, command: /x, mounts: [{source: s, target: /workspace/x}]}]\n", "mcp_servers[0].mounts[0].target"],
      ["an MCP mount with ..", "tasks: [1]\nmcp_servers: [{name: a, command: /x, mounts: [{source: s, target: /opt/mcp/../etc}]}]\n", "mcp_servers[0].mounts[0].target"],
      ["an unknown MCP key", "tasks: [1]\nmcp_servers: [{name: a, command: /x, env: {}}]\n", "mcp_servers[0].env"],
    ])("refuses %s at the top level", (_name, text, field) => {
      const result = parseTaskSuite(text, "/suite/demo.yaml", "/suite");
      expect(!result.ok && result.error.task).toBeNull();
      expect(!result.ok && result.error.field).toBe(field);
      expect(!result.ok && result.error.message).toContain("Fix: ");
    });

    it("names where a YAML syntax error stopped the parser, and how to fix it, not the top level's shape", () => {
      const result = parseTaskSuite("tasks:\n  - id: a\n    prompt: [unclosed\n", "/suite/demo.yaml", "/suite");
      expect(result.ok).toBe(false);
      const message = !result.ok ? result.error.message : "";
      expect(message).toMatch(/not valid YAML \(line \d+, column \d+: /u);
      expect(message).not.toContain("\n");
      expect(message).toContain("Fix: correct the YAML syntax");
      expect(message).not.toContain("top level a mapping");
    });
  });
});

// Each level a list of ten aliases of the one before: `levels` short lines stand for 10^levels empty lists, and yaml's
// maxAliasCount weighs an alias of an empty list as 0, so its own bound lets the whole bomb through.
function aliasBomb(levels: number): string {
  const parts = ["&a0 []"];
  for (let level = 1; level <= levels; level += 1) parts.push(`&a${level} [${Array<string>(10).fill(`*a${level - 1}`).join(", ")}]`);
  return `tasks:\n  - {id: t, class: c, repo: r, prompt: p, verify: v, oracle: {command: x, files: [{source: s, target: t}]}, sandbox_copy: [${parts.join(", ")}]}\n`;
}

describe("parseTaskSuite against hostile YAML", () => {
  function refusal(text: string): { field: string; message: string } {
    const result = parseTaskSuite(text, "/suite/hostile.yaml", "/suite");
    if (result.ok) throw new Error("loaded");
    expect(result.error.message).toMatch(/^\/suite\/hostile\.yaml: /u);
    expect(result.error.message).toContain(". Fix: ");
    return { field: result.error.field, message: result.error.message };
  }

  it.each([9, 12])("refuses the empty-list alias bomb of %i levels as what it is, before anything expands it", (levels) => {
    const refused = refusal(aliasBomb(levels));
    expect(refused.field).toBe("tasks");
    expect(refused.message).toMatch(/expands to more than 8 MiB of data once its aliases are copied out.*Fix: alias smaller values, or fewer times/u);
  });

  it("refuses an alias of a collection that contains it, naming where", () => {
    const refused = refusal("tasks: &t [{id: t, class: c, repo: r, prompt: p, verify: v, oracle: {command: x, files: []}, sandbox_copy: *t}]\n");
    expect(refused.field).toBe("tasks[0].sandbox_copy");
    expect(refused.message).toMatch(/contains itself.*Fix: alias only a collection that has ended/u);
  });

  it("refuses more aliases than a task file may hold before yaml resolves any", () => {
    const aliases = (count: number): string => `tasks: [&e [], ${Array<string>(count).fill("*e").join(", ")}]\n`;
    expect(refusal(aliases(1_001)).message).toMatch(/holds 1,001 aliases, more than the 1,000 a task file may.*Fix: write the values out/u);
    // 1,000 pass the bound and reach the schema, which refuses lists as tasks.
    expect(refusal(aliases(1_000)).message).toMatch(/field tasks\[0\]: must be a mapping/u);
  });

  it("refuses nesting deeper than a task file needs, naming the path", () => {
    const refused = refusal(`tasks: [{id: t, class: c, repo: r, prompt: p, verify: v, oracle: {command: x, files: []}, sandbox_copy: ${"[".repeat(70)}${"]".repeat(70)}}]\n`);
    expect(refused.field).toMatch(/^tasks\[0\]\.sandbox_copy(\[0\])+$/u);
    expect(refused.message).toMatch(/nests more than 64 levels/u);
  });

  it("refuses a text over the size bound before parsing it", () => {
    // Densely nested flow lists: the input that costs yaml ~500 bytes of memory per byte.
    const text = `tasks: [${"[".repeat(700)}${"]".repeat(700)}]\n#${"x".repeat(MAX_TASK_FILE_BYTES)}\n`;
    const refused = refusal(text);
    expect(refused.field).toBe("tasks");
    expect(refused.message).toMatch(/is \d[\d,]* bytes, more than the 256 KiB a task file may hold.*Fix: split the suite/u);
  });
});

describe("loadTaskSuite against hostile files", () => {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "task-suite-hostile-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses an oversize file by its size, before reading it", async () => {
    const file = join(dir, "big.yaml");
    const text = `tasks: []\n#${"x".repeat(MAX_TASK_FILE_BYTES)}\n`;
    await writeFile(file, text);
    const result = await loadTaskSuite(file);
    expect(!result.ok && result.error.message).toContain(`big.yaml: field tasks: the task file is ${text.length.toLocaleString("en-US")} bytes, more than the 256 KiB`);
  });

  it("refuses an alias bomb that also declares a review corpus, without expanding it for the corpus either", async () => {
    const file = join(dir, "bomb.yaml");
    await writeFile(file, `${aliasBomb(10)}review_cases: x/eval/workflow_bench/review_cases\n`);
    const result = await loadTaskSuite(file);
    expect(!result.ok && result.error.message).toMatch(/expands to more than 8 MiB/u);
  });
});
