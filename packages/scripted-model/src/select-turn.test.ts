import { describe, expect, it } from "vitest";
import { parseScript } from "./load-script.js";
import type { MessagesRequest, Script } from "./schema.js";
import { countConversationPosition, extractRequestTexts, selectTurn } from "./select-turn.js";

function script(): Script {
  const result = parseScript(
    JSON.stringify({
      version: 1,
      trajectories: [
        { name: "both", match: { contains: "AAA", regex: "ticket-\\d+" }, turns: [{ content: [{ type: "text", text: "1" }], usage: { input_tokens: 0, output_tokens: 0 } }] },
        { name: "sys", match: { regex: "^You are BOT", in: "system" }, turns: [{ content: [{ type: "text", text: "2" }], usage: { input_tokens: 0, output_tokens: 0 } }] },
      ],
    }),
    "inline",
  );
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function request(partial: Partial<MessagesRequest>): MessagesRequest {
  return { model: "m", messages: [{ role: "user", content: "hello" }], ...partial };
}

describe("extractRequestTexts", () => {
  it("joins text blocks, ignores other blocks and takes the last first-user block as the prompt", () => {
    const texts = extractRequestTexts(
      request({
        system: [{ type: "text", text: "billing" }, { type: "text", text: "You are BOT" }],
        messages: [
          { role: "user", content: [{ type: "text", text: "<system-reminder>x</system-reminder>" }, { type: "image" }, { type: "text", text: "the prompt" }] },
          { role: "assistant", content: "ok" },
          { role: "user", content: "later" },
        ],
      }),
    );
    expect(texts).toEqual({ system: "billing\nYou are BOT", firstUser: "<system-reminder>x</system-reminder>\nthe prompt", prompt: "the prompt" });
  });
});

describe("countConversationPosition", () => {
  it("counts assistant messages, not user ones", () => {
    expect(countConversationPosition(request({}))).toBe(0);
    expect(
      countConversationPosition(
        request({ messages: [{ role: "user", content: "a" }, { role: "user", content: "nudge" }, { role: "assistant", content: "b" }, { role: "user", content: "c" }] }),
      ),
    ).toBe(1);
  });
});

describe("selectTurn", () => {
  it("requires every condition of a rule to hold in the same text", () => {
    expect(selectTurn(script(), request({ messages: [{ role: "user", content: "AAA ticket-12" }] }))).toMatchObject({ ok: true, trajectory: { name: "both" } });
    const onlyOne = selectTurn(script(), request({ messages: [{ role: "user", content: "AAA without a number" }] }));
    expect(onlyOne).toMatchObject({ ok: false, reason: "unmatched", promptPrefix: "AAA without a number" });
  });

  it("anchors a system regex to the system text only", () => {
    expect(selectTurn(script(), request({ system: "You are BOT." }))).toMatchObject({ ok: true, trajectory: { name: "sys" } });
    expect(selectTurn(script(), request({ system: "x", messages: [{ role: "user", content: "You are BOT" }] }))).toMatchObject({ ok: false });
  });

  it("reports the position beyond the script", () => {
    const result = selectTurn(
      script(),
      request({ system: "You are BOT", messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }, { role: "user", content: "c" }] }),
    );
    expect(result).toMatchObject({ ok: false, reason: "beyond_script", position: 1 });
    if (!result.ok) expect(result.message).toMatch(/"sys" has 1 turn\(s\).*position 1/);
  });
});
