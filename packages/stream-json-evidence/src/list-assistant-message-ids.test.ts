import { describe, expect, it } from "vitest";
import { listAssistantMessageIds } from "./list-assistant-message-ids.js";
import type { StreamEvent } from "./schema.js";

describe("listAssistantMessageIds", () => {
  it("keeps each assistant message id once, subagent ones included, in first-seen order", () => {
    const events: StreamEvent[] = [
      { type: "system", subtype: "init", message: { id: "msg_not_assistant" } },
      { type: "assistant", message: { id: "msg_b", content: [] }, parent_tool_use_id: null },
      { type: "assistant", message: { id: "msg_b", content: [] }, parent_tool_use_id: null },
      { type: "user", message: { id: "msg_user" } },
      { type: "assistant", message: { id: "msg_a" }, parent_tool_use_id: "toolu_1" },
    ];
    expect(listAssistantMessageIds(events)).toEqual(["msg_b", "msg_a"]);
  });

  it("ignores ids that are missing, empty, not strings or too long", () => {
    const events: StreamEvent[] = [
      { type: "assistant", message: { content: [] } },
      { type: "assistant", message: { id: "" } },
      { type: "assistant", message: { id: 7 } },
      { type: "assistant", message: null },
      { type: "assistant", message: { id: "m".repeat(201) } },
    ];
    expect(listAssistantMessageIds(events)).toEqual([]);
  });
});
