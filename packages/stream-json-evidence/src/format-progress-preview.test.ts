import { describe, expect, it } from "vitest";
import { assistant, toolResult, toolUse, user } from "../test/support/events.js";
import { createProgressPreviewer, neutralizeLogCommands } from "./format-progress-preview.js";
import type { StreamEvent } from "./schema.js";

const ev = (value: object): StreamEvent => value as StreamEvent;

describe("createProgressPreviewer", () => {
  it("shows redacted single-line inputs and outputs of previewable tools", () => {
    const previewer = createProgressPreviewer({ secrets: ["s3cret-value"] });
    const call = previewer.preview(ev(assistant([toolUse("t1", "Bash", { command: "echo s3cret-value\nls", token: "x" })])));
    expect(call).toEqual(['→ Bash {"command":"echo [REDACTED]\\nls","token":"[REDACTED]"}']);
    const answer = previewer.preview(ev(user([toolResult("t1", { content: [{ type: "text", text: "line1\nsk-ant-api03-abcdefghij" }] })])));
    expect(answer).toEqual(['← Bash "line1\\n[REDACTED]"']);
  });

  it("shows only the name for other tools and marks errors and subagents", () => {
    const previewer = createProgressPreviewer();
    expect(previewer.preview(ev(assistant([toolUse("w", "Write", { content: "big file" })], { parent_tool_use_id: "task" })))).toEqual(["[subagent] → Write"]);
    expect(previewer.preview(ev(user([toolResult("w", { is_error: true })])))).toEqual(["← Write (error)"]);
    expect(previewer.preview(ev(user([toolResult("unknown")])))).toEqual(["← tool"]);
    expect(previewer.preview(ev({ type: "system", subtype: "init" }))).toEqual([]);
  });

  it("bounds every line to 800 characters without splitting a surrogate pair", () => {
    const previewer = createProgressPreviewer();
    const [line] = previewer.preview(ev(assistant([toolUse("r", "Read", { file_path: "👋".repeat(2000) })])));
    expect(line?.length).toBeLessThanOrEqual(800);
    expect(line?.endsWith("…")).toBe(true);
    expect(/[\uD800-\uDBFF]…$/.test(line ?? "")).toBe(false);
  });

  it("neutralises CI log commands in previews", () => {
    const previewer = createProgressPreviewer();
    previewer.preview(ev(assistant([toolUse("g", "mcp__gitnexus__query", {})])));
    const [line] = previewer.preview(ev(user([toolResult("g", { content: "::error::x ##[group]y src/a.ts(3,4): error TS1" })])));
    expect(line).toBe('← mcp__gitnexus__query "::error::x # [group]y src/a.ts(3,4): compiler-error TS1"');
  });

  it.each([
    ["a JSON error object", '{"error":"graph not indexed"}'],
    ["text starting with error:", "error: repository unknown"],
    ["text blocks starting with Error:", [{ type: "text", text: "Error: bad query" }]],
  ])("labels an MCP result carrying %s as a semantic-error", (_label, content) => {
    const previewer = createProgressPreviewer();
    previewer.preview(ev(assistant([toolUse("m", "mcp__gitnexus__query", {})])));
    const [line] = previewer.preview(ev(user([toolResult("m", { content })])));
    expect(line).toMatch(/^← mcp__gitnexus__query \(semantic-error\) /);
  });

  it("does not label ordinary MCP output or non-MCP errors as semantic errors", () => {
    const previewer = createProgressPreviewer();
    previewer.preview(ev(assistant([toolUse("m", "mcp__gitnexus__query", {}), toolUse("b", "Bash", {})])));
    expect(previewer.preview(ev(user([toolResult("m", { content: '{"error":null,"rows":[]}' })])))[0]).not.toContain("semantic-error");
    expect(previewer.preview(ev(user([toolResult("b", { content: "error: exit 1" })])))[0]).not.toContain("semantic-error");
  });

  it("throws EVIDENCE_INVALID_OPTIONS for a bound above 800", () => {
    expect(() => createProgressPreviewer({ maxChars: 801 })).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
  });
});

describe("neutralizeLogCommands", () => {
  it.each([
    ["::set-output name=a::b", "[:]set-output name=a::b"],
    ["ok\n::warning::w", "ok\n[:]warning::w"],
    ["##[error]boom", "# [error]boom"],
    ["file.ts(10,2): error TS2322", "file.ts(10,2): compiler-error TS2322"],
    ["plain text", "plain text"],
  ])("rewrites %j", (input, expected) => expect(neutralizeLogCommands(input)).toBe(expected));
});
