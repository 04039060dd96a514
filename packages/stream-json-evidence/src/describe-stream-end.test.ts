import { describe, expect, it } from "vitest";
import { describeStreamEnd, type StreamEnd } from "./describe-stream-end.js";
import { parseEvidenceBytes } from "./parse-evidence-stream.js";

const init = { type: "system", subtype: "init", session_id: "s" };
const prompt = { type: "user", message: { role: "user", content: "do it" }, parent_tool_use_id: null, session_id: "s" };
const toolUse = { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "kill -TERM 1" } }] }, parent_tool_use_id: null, session_id: "s" };
const toolResult = { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Exit code 137" }] }, parent_tool_use_id: null, session_id: "s" };
const text = { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "thinking" }] }, parent_tool_use_id: null, session_id: "s" };
const subagentText = { ...text, parent_tool_use_id: "t1" };
const retry = { type: "system", subtype: "api_retry", attempt: 1, session_id: "s" };
const render = { type: "system", subtype: "ui_invalidate", session_id: "s" };
const rejected = { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "The user doesn't want to proceed with this tool use.", is_error: true }] }, parent_tool_use_id: null, session_id: "s" };
const interrupt = { type: "user", message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user for tool use]" }] }, parent_tool_use_id: null, session_id: "s" };
const result = { type: "result", subtype: "success", is_error: false, session_id: "s", usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } };

const end = (events: readonly object[]): StreamEnd => describeStreamEnd(parseEvidenceBytes(Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(""), "utf8")));

describe("describeStreamEnd", () => {
  it.each<[string, readonly object[], StreamEnd]>([
    ["a stream with its result event", [init, toolUse, toolResult, text, result], "result"],
    ["a result after a SIGINT interrupted the agent's tool call (the kill -INT 1 trace)", [init, prompt, toolUse, rejected, interrupt, result], "interrupted"],
    ["the marker only counts as the last conversation event", [init, interrupt, toolUse, toolResult, text, result], "result"],
    ["the marker inside a tool's output is not an interrupt", [init, toolUse, { ...toolResult, message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "[Request interrupted by user" }] } }, result], "result"],
    ["killed while its own tool ran (the tool_use is last)", [init, prompt, toolUse], "tool-running"],
    ["killed right after its tool's result was written (the kill -TERM 1 trace)", [init, prompt, toolUse, toolResult, render], "tool-result"],
    ["a subagent running its own tool, inside the parent's tool call", [init, toolUse, { ...toolUse, parent_tool_use_id: "t1" }], "tool-running"],
    ["a subagent's text last: its model answered, nothing running", [init, toolUse, subagentText], "model-turn"],
    ["retrying the model after a tool result: waiting on the model", [init, toolUse, toolResult, retry], "model-turn"],
    ["a last assistant message without a tool call", [init, prompt, text], "model-turn"],
    ["only the prompt: asking the model", [init, prompt], "model-turn"],
    ["no conversation event", [init, render], "none"],
  ])("%s", (_name, events, expected) => {
    expect(end(events)).toBe(expected);
  });

  it("says nothing about a capture that did not parse", () => {
    expect(describeStreamEnd(parseEvidenceBytes(Buffer.from("not json\n", "utf8")))).toBe("unparsed");
  });
});
