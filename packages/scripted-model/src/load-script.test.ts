import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { aliasBombInputYaml, deepInputYaml, nestFlow, nestingDepth, scriptWithInput } from "../test/support/deep-yaml.js";
import { loadScript, parseScript } from "./load-script.js";
import { MAX_TOOL_INPUT_DEPTH } from "./script-limits.js";

const goodTurn = "      - content: [{ type: text, text: hi }]\n        usage: { input_tokens: 1, output_tokens: 2 }\n";
const goodScript = `version: 1\ntrajectories:\n  - name: t\n    match: { contains: MARK }\n    turns:\n${goodTurn}`;

describe("parseScript", () => {
  it("accepts a minimal script and fills the defaults", () => {
    const result = parseScript(goodScript, "inline.yaml");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const turn = result.value.trajectories[0]?.turns[0];
    expect(turn?.usage).toEqual({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(turn?.usage_at).toBe("message_delta");
    expect(turn?.faults).toEqual([]);
    expect(result.value.trajectories[0]?.match.in).toBe("any");
  });

  it("accepts JSON as well as YAML", () => {
    const json = JSON.stringify({
      version: 1,
      trajectories: [{ name: "j", match: { regex: "^x" }, turns: [{ content: [{ type: "text", text: "a" }], usage: { input_tokens: 0, output_tokens: 0 } }] }],
    });
    expect(parseScript(json, "inline.json").ok).toBe(true);
  });

  const badCases: ReadonlyArray<{ name: string; text: string; path: string; fragment: RegExp }> = [
    { name: "wrong version", text: goodScript.replace("version: 1", "version: 2"), path: "version", fragment: /1/ },
    { name: "no trajectories", text: "version: 1\ntrajectories: []\n", path: "trajectories", fragment: /./ },
    {
      name: "misspelt key in a turn",
      text: goodScript.replace("usage:", "usgae: { input_tokens: 1, output_tokens: 1 }\n        usage:"),
      path: "trajectories[0].turns[0]",
      fragment: /usgae/,
    },
    {
      name: "negative usage figure",
      text: goodScript.replace("input_tokens: 1", "input_tokens: -1"),
      path: "trajectories[0].turns[0].usage.input_tokens",
      fragment: />=\s*0|too small/i,
    },
    {
      name: "tool_use without a name",
      text: goodScript.replace("{ type: text, text: hi }", "{ type: tool_use, input: {} }"),
      path: "trajectories[0].turns[0].content[0].name",
      fragment: /./,
    },
    {
      name: "unknown block type",
      text: goodScript.replace("type: text", "type: image"),
      path: "trajectories[0].turns[0].content[0].type",
      fragment: /./,
    },
    {
      name: "match rule without contains or regex",
      text: goodScript.replace("{ contains: MARK }", "{ in: system }"),
      path: "trajectories[0].match",
      fragment: /contains.*regex/,
    },
    {
      name: "regex that does not compile",
      text: goodScript.replace("{ contains: MARK }", '{ regex: "(unclosed" }'),
      path: "trajectories[0].match.regex",
      fragment: /invalid regular expression/,
    },
    {
      name: "unknown fault kind",
      text: goodScript.replace("usage: {", "faults: [{ kind: explode }]\n        usage: {"),
      path: "trajectories[0].turns[0].faults[0].kind",
      fragment: /./,
    },
    {
      name: "http fault with a 2xx status",
      text: goodScript.replace("usage: {", "faults: [{ kind: http_error, status: 200 }]\n        usage: {"),
      path: "trajectories[0].turns[0].faults[0].status",
      fragment: /./,
    },
    {
      name: "duplicate trajectory names",
      text: `${goodScript}  - name: t\n    match: { contains: OTHER }\n    turns:\n${goodTurn}`,
      path: "trajectories[1].name",
      fragment: /duplicate trajectory name "t"/,
    },
    {
      name: "duplicate explicit tool ids",
      text: goodScript.replace(
        "{ type: text, text: hi }",
        "{ type: tool_use, name: A, input: {}, id: toolu_1 }, { type: tool_use, name: B, input: {}, id: toolu_1 }",
      ),
      path: "trajectories[0].turns[0].content[1].id",
      fragment: /duplicate tool_use id/,
    },
    {
      name: "non-finite numbers in a tool input (they would go over the wire as null)",
      text: goodScript.replace("{ type: text, text: hi }", "{ type: tool_use, name: A, input: { n: 1, deep: { x: [.inf] } } }"),
      path: "trajectories[0].turns[0].content[0].input.deep.x[0]",
      fragment: /./,
    },
    {
      name: "a stream error after more blocks than the turn has",
      text: goodScript.replace("usage: {", "faults: [{ kind: stream_error, after_blocks: 2 }]\n        usage: {"),
      path: "trajectories[0].turns[0].faults[0].after_blocks",
      fragment: /1 content block/,
    },
    {
      name: "an alias expansion bomb",
      text: `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [${"*a, ".repeat(20)}*a]\nc: &c [${"*b, ".repeat(20)}*b]\n${goodScript}`,
      path: "(document)",
      fragment: /alias/i,
    },
    {
      name: "a __proto__ key in a tool input (it would be dropped silently)",
      text: goodScript.replace("{ type: text, text: hi }", "{ type: tool_use, name: A, input: { __proto__: { a: 1 } } }"),
      path: "trajectories[0].turns[0].content[0].input",
      fragment: /__proto__/,
    },
    { name: "an empty file", text: "", path: "(root)", fragment: /object/ },
    { name: "a top-level list", text: "- version: 1\n", path: "(root)", fragment: /object/ },
    { name: "two YAML documents", text: `${goodScript}---\n${goodScript}`, path: "line", fragment: /multiple documents/ },
    { name: "a string version", text: goodScript.replace("version: 1", 'version: "1"'), path: "version", fragment: /./ },
    { name: "a float usage figure", text: goodScript.replace("input_tokens: 1", "input_tokens: 1.5"), path: "trajectories[0].turns[0].usage.input_tokens", fragment: /int/ },
    { name: "an unsafe integer", text: goodScript.replace("input_tokens: 1", "input_tokens: 1e20"), path: "trajectories[0].turns[0].usage.input_tokens", fragment: /./ },
    { name: "a missing usage", text: goodScript.replace("        usage: { input_tokens: 1, output_tokens: 2 }\n", ""), path: "trajectories[0].turns[0].usage", fragment: /./ },
    { name: "a tool input that is a list", text: goodScript.replace("{ type: text, text: hi }", "{ type: tool_use, name: A, input: [1] }"), path: "trajectories[0].turns[0].content[0].input", fragment: /record/ },
    { name: "an unknown stop_reason", text: goodScript.replace("usage: {", "stop_reason: done\n        usage: {"), path: "trajectories[0].turns[0].stop_reason", fragment: /end_turn/ },
    { name: "an unknown match target", text: goodScript.replace("{ contains: MARK }", "{ contains: MARK, in: user }"), path: "trajectories[0].match.in", fragment: /first_user/ },
    { name: "an empty marker", text: goodScript.replace("{ contains: MARK }", '{ contains: "" }'), path: "trajectories[0].match.contains", fragment: /./ },
    { name: "zero fault times", text: goodScript.replace("usage: {", "faults: [{ kind: delay, ms: 1, times: 0 }]\n        usage: {"), path: "trajectories[0].turns[0].faults[0].times", fragment: /./ },
    { name: "a binary tag where text is expected", text: goodScript.replace("text: hi", "text: !!binary aGk="), path: "trajectories[0].turns[0].content[0].text", fragment: /string/ },
    { name: "YAML syntax error", text: "version: 1\ntrajectories: [\n", path: "line", fragment: /./ },
    { name: "duplicate YAML key", text: `version: 1\n${goodScript}`, path: "line", fragment: /./ },
  ];

  it.each(badCases)("refuses $name, naming the file and the field path", ({ text, path, fragment }) => {
    const result = parseScript(text, "scripts/broken.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.file).toBe("scripts/broken.yaml");
    expect(result.error.message).toContain("scripts/broken.yaml");
    const issue = result.error.issues.find((candidate) => candidate.path.startsWith(path));
    expect(issue, JSON.stringify(result.error.issues)).toBeDefined();
    expect(`${issue?.path} ${issue?.message}`).toMatch(fragment);
    expect(result.error.message).toContain(issue?.path ?? "");
  });
});

describe("parseScript on hostile scripts", () => {
  const inputPath = "trajectories[0].turns[0].content[0].input";

  function loadedInput(text: string): Record<string, unknown> {
    const result = parseScript(text, "scripts/deep.yaml");
    expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
    const block = result.ok ? result.value.trajectories[0]?.turns[0]?.content[0] : undefined;
    if (block?.type !== "tool_use") throw new Error("no tool_use block");
    return block.input;
  }

  function refusal(text: string): { kind: string; path: string; message: string; whole: string } {
    const result = parseScript(text, "scripts/hostile.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) throw new Error("loaded");
    expect(result.error.message).toContain("scripts/hostile.yaml");
    const [issue] = result.error.issues;
    return { kind: result.error.kind, path: issue?.path ?? "", message: issue?.message ?? "", whole: result.error.message };
  }

  // Before: checkJsonValue recursed and threw RangeError near 3,600 object / 2,800 list levels.
  it.each([
    { kind: "map" as const, depth: 3_601 },
    { kind: "seq" as const, depth: 2_801 },
    { kind: "map" as const, depth: MAX_TOOL_INPUT_DEPTH },
    { kind: "seq" as const, depth: MAX_TOOL_INPUT_DEPTH },
  ])("loads a $depth-level $kind tool input built from chained anchors, unchanged", ({ kind, depth }) => {
    const input = loadedInput(scriptWithInput(deepInputYaml(kind, depth)));
    expect(nestingDepth(input)).toBe(depth);
    let cursor: unknown = input["payload"];
    for (let level = 2; level < depth; level += 1) cursor = kind === "map" ? (cursor as { a: unknown }).a : (cursor as unknown[])[0];
    expect(cursor).toEqual(kind === "map" ? { a: "bottom" } : ["bottom"]);
  });

  it.each([
    { kind: "map" as const, depth: MAX_TOOL_INPUT_DEPTH + 1 },
    { kind: "seq" as const, depth: MAX_TOOL_INPUT_DEPTH + 1 },
    { kind: "map" as const, depth: 5_000 },
    { kind: "seq" as const, depth: 5_000 },
  ])("refuses a $depth-level $kind tool input as a schema refusal naming the input and the bound", ({ kind, depth }) => {
    const refused = refusal(scriptWithInput(deepInputYaml(kind, depth, 740)));
    expect(refused.kind).toBe("schema");
    expect(refused.path).toBe(inputPath);
    expect(refused.message).toMatch(/more than 4,000 levels/);
  });

  it.each([
    { name: "a map", input: "&c { self: *c }" },
    { name: "a list", input: "{ l: &c [1, [2, *c]] }" },
  ])("refuses an alias cycle through $name instead of recursing forever", ({ input }) => {
    const refused = refusal(scriptWithInput(input));
    expect(refused.kind).toBe("syntax");
    expect(refused.path.startsWith(inputPath)).toBe(true);
    expect(refused.message).toMatch(/contains itself/);
  });

  it("refuses a cycle even behind a bad number (the number is the schema's to report; a cycle must never reach zod)", () => {
    const refused = refusal(scriptWithInput("{ n: .inf, l: &c [1, [2, *c]] }"));
    expect(refused.kind).toBe("syntax");
    expect(refused.path).toBe(`${inputPath}.l[1][1]`);
    expect(refused.message).toMatch(/contains itself/);
  });

  it("refuses a literal too deep for the YAML parser with the fix, not a RangeError", () => {
    const refused = refusal(scriptWithInput(nestFlow("seq", 5_000, "x")));
    expect(refused.kind).toBe("syntax");
    expect(refused.path).toMatch(/^line 9, column \d+$/);
    expect(refused.message).toMatch(/nests too deeply for the YAML parser.*anchors/);
  });

  it("refuses the empty-list alias bomb cheaply (10^9 lists in 12 lines get past maxAliasCount)", () => {
    const started = performance.now();
    const refused = refusal(scriptWithInput(aliasBombInputYaml(9)));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(refused.kind).toBe("syntax");
    expect(refused.path).toBe("(document)");
    expect(refused.message).toMatch(/expands to more than 32 MiB/);
  });

  it("loads an alias-built input just under the expansion bound and refuses one just over", () => {
    // Six levels: 10^6 empty lists, about 3.6 MB of JSON; seven: 36 MB.
    expect(JSON.stringify(loadedInput(scriptWithInput(aliasBombInputYaml(6)))).length).toBe(3_580_273);
    expect(refusal(scriptWithInput(aliasBombInputYaml(7))).message).toMatch(/expands to more than 32 MiB/);
  });

  it("refuses more than 1,000 aliases before yaml resolves them (each resolution rescans the document)", () => {
    const aliases = (count: number): string => scriptWithInput(`{ e: &e [], l: [${Array<string>(count).fill("*e").join(", ")}] }`);
    expect((loadedInput(aliases(1_000))["l"] as unknown[]).length).toBe(1_000);
    const started = performance.now();
    const refused = refusal(aliases(30_000));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(refused.kind).toBe("syntax");
    expect(refused.message).toMatch(/30000 aliases, more than the 1,000/);
  });
});

describe("loadScript", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "scripted-model-load-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("loads a file and names it when refusing", async () => {
    const good = join(dir, "good.yaml");
    const bad = join(dir, "bad.yaml");
    await writeFile(good, goodScript);
    await writeFile(bad, goodScript.replace("output_tokens: 2", "output_tokens: two"));
    expect((await loadScript(good)).ok).toBe(true);
    const refused = await loadScript(bad);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.kind).toBe("schema");
    expect(refused.error.file).toBe(bad);
    expect(refused.error.issues.map((issue) => issue.path)).toContain("trajectories[0].turns[0].usage.output_tokens");
  });

  it("returns an unreadable refusal for a missing file instead of throwing", async () => {
    const missing = join(dir, "missing.yaml");
    const result = await loadScript(missing);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe("unreadable");
    expect(result.error.message).toContain(missing);
    expect(result.error.message).toContain("ENOENT");
  });

  it("accepts the complete example in the README", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const result = parseScript(example ?? "", "README.md");
    expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
    if (result.ok) expect(result.value.trajectories[0]?.turns[0]?.faults.map((fault) => fault.kind)).toEqual(["http_error", "stream_error", "omit_content_block_stop", "delay"]);
  });

  it("loads the shipped example scripts", async () => {
    const result = await loadScript(new URL("../scripts/smoke-skill-write-bash.yaml", import.meta.url).pathname);
    expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
  });
});
