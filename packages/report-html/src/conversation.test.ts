import { describe, expect, it } from "vitest";
import { MAX_ITEM_CHARS, toConversation } from "./conversation.js";

const line = (value: unknown): string => JSON.stringify(value);

describe("toConversation", () => {
  it("shows text, tool calls and results, and marks the Skill call and its result as the skill proof", () => {
    const transcript = [
      line({ type: "system", subtype: "init", model: "m", claude_code_version: "2.1.332", skills: ["demo-work"] }),
      line({ type: "assistant", message: { content: [{ type: "text", text: "hello" }, { type: "tool_use", id: "s1", name: "Skill", input: { skill: "demo-work" } }, { type: "tool_use", id: "b1", name: "Bash", input: { command: "ls" } }] } }),
      line({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "s1", content: "Launching skill" }, { type: "tool_result", tool_use_id: "b1", content: [{ type: "text", text: "a.txt" }], is_error: true }] } }),
      line({ type: "result", subtype: "success", num_turns: 2, duration_ms: 5, result: "done", is_error: false }),
      "",
    ].join("\n");
    const items = toConversation(transcript);
    expect(items.map((i) => `${i.role}/${i.kind}/${i.name ?? ""}/${String(i.skill)}`)).toEqual([
      "system/event/init/false",
      "assistant/text//false",
      "assistant/tool_use/Skill/true",
      "assistant/tool_use/Bash/false",
      "user/tool_result//true",
      "user/tool_result//false",
      "result/event/result/false",
    ]);
    expect(items[0]?.text).toContain("skills: demo-work");
    expect(items[3]?.text).toContain('"command": "ls"');
    expect(items[5]).toMatchObject({ text: "a.txt", error: true });
  });

  it("keeps an unparseable line as raw text and clips huge items", () => {
    const items = toConversation(`not json </script>\n${line({ type: "assistant", message: { content: [{ type: "text", text: "x".repeat(MAX_ITEM_CHARS + 5) }] } })}`);
    expect(items[0]).toMatchObject({ kind: "event", text: "not json </script>", error: true });
    expect(items[1]?.text.length).toBeLessThan(MAX_ITEM_CHARS + 100);
    expect(items[1]?.text).toContain("5 more characters");
  });
});
