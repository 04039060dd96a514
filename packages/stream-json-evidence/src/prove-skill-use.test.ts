import { describe, expect, it } from "vitest";
import { assistant, encode, init, jsonl, result, toolResult, toolUse, user } from "../test/support/events.js";
import { parseEvidenceBytes, type ParsedEvidenceStream } from "./parse-evidence-stream.js";
import { proveSkillUse } from "./prove-skill-use.js";
import type { JsonObject } from "./schema.js";

function stream(events: JsonObject[]): ParsedEvidenceStream {
  const parsed = parseEvidenceBytes(encode(jsonl([...events, result()])));
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

const skillCall = (id: string, input: JsonObject, name = "Skill"): JsonObject => assistant([toolUse(id, name, input)]);
const answer = (id: string, extra: JsonObject = {}): JsonObject => user([toolResult(id, extra)]);

describe("proveSkillUse", () => {
  describe("matching requests", () => {
    it.each([
      ["skill field", { skill: "review" }, "Skill"],
      ["command field with slash and args", { command: "/review --all" }, "Skill"],
      ["name field with plugin prefix", { name: "ce:review" }, "Skill"],
      ["case-folded tool name", { skill: "review" }, "SKILL"],
      ["long-s fold", { skill: "review" }, "ſkill"],
    ])("proves a %s", (_label, input, name) => {
      const proof = proveSkillUse(stream([init(["review"]), skillCall("t1", input, name), answer("t1")]), "review");
      expect(proof).toMatchObject({ skillInvoked: true, status: "proven", matchingRequests: 1, successfulResults: 1, discovered: true });
    });

    it("ignores other skills and non-Skill tools with the same input", () => {
      const proof = proveSkillUse(
        stream([skillCall("t1", { skill: "other" }), answer("t1"), skillCall("t2", { skill: "review" }, "Bash"), answer("t2")]),
        "review",
      );
      expect(proof).toMatchObject({ skillInvoked: false, status: "not-invoked", matchingRequests: 0, discovered: null });
    });

    it("is false when every matching result is an error, true when one of several succeeds", () => {
      const failed = proveSkillUse(stream([skillCall("t1", { skill: "review" }), answer("t1", { is_error: true })]), "review");
      expect(failed).toMatchObject({ skillInvoked: false, erroredResults: 1 });
      const mixed = proveSkillUse(
        stream([skillCall("t1", { skill: "review" }), answer("t1", { is_error: true }), skillCall("t2", { skill: "review" }), answer("t2", { is_error: false })]),
        "review",
      );
      expect(mixed).toMatchObject({ skillInvoked: true, erroredResults: 1, successfulResults: 1 });
    });

    it("reads blocks from a top-level content array too", () => {
      const proof = proveSkillUse(
        stream([{ type: "assistant", content: [toolUse("t1", "Skill", { skill: "review" })] }, { type: "user", content: [toolResult("t1")] }]),
        "review",
      );
      expect(proof.skillInvoked).toBe(true);
    });
  });

  describe("unverifiable evidence", () => {
    it.each([
      ["an invalid tool_use id", [skillCall("bad id!", { skill: "x" })], "EVIDENCE_TOOL_USE_ID_INVALID"],
      ["a missing tool_use id", [assistant([{ type: "tool_use", name: "Bash", input: {} }])], "EVIDENCE_TOOL_USE_ID_INVALID"],
      ["an over-long tool_use id", [skillCall("a".repeat(257), { skill: "x" })], "EVIDENCE_TOOL_USE_ID_INVALID"],
      ["a duplicate tool_use id", [skillCall("t1", { skill: "x" }), skillCall("t1", { skill: "y" })], "EVIDENCE_TOOL_USE_ID_DUPLICATE"],
      ["an invalid tool_result id", [user([toolResult(42)])], "EVIDENCE_TOOL_RESULT_ID_INVALID"],
      ["a duplicate tool_result id", [answer("t9"), answer("t9")], "EVIDENCE_TOOL_RESULT_ID_DUPLICATE"],
      ["a non-boolean is_error", [answer("t9", { is_error: "yes" })], "EVIDENCE_TOOL_RESULT_IS_ERROR_INVALID"],
      ["a request without result", [skillCall("t1", { skill: "review" })], "EVIDENCE_SKILL_RESULT_MISSING"],
      ["a result in the same event", [assistant([toolUse("t1", "Skill", { skill: "review" }), toolResult("t1")])], "EVIDENCE_SKILL_RESULT_BEFORE_REQUEST"],
      ["a result before its request", [answer("t1"), skillCall("t1", { skill: "review" })], "EVIDENCE_SKILL_RESULT_BEFORE_REQUEST"],
    ])("returns null for %s", (_label, events, code) => {
      const proof = proveSkillUse(stream(events as JsonObject[]), "review");
      expect(proof.skillInvoked).toBeNull();
      expect(proof.status).toBe("unverifiable");
      expect(proof.diagnostics.map((diagnostic) => diagnostic.code)).toContain(code);
    });

    it("stays unverifiable even when another request is proven", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }), answer("t1"), skillCall("t2", { skill: "review" })]), "review");
      expect(proof.skillInvoked).toBeNull();
      expect(proof.successfulResults).toBe(1);
    });

    it("never looks at events after the result", () => {
      const parsed = parseEvidenceBytes(encode(jsonl([skillCall("t1", { skill: "review" }), result(), { type: "system", content: [toolResult("t1")] }])));
      if (!parsed.ok) throw new Error(parsed.error.message);
      expect(proveSkillUse(parsed.value, "review").diagnostics[0]?.code).toBe("EVIDENCE_SKILL_RESULT_MISSING");
    });
  });

  it("counts tool uses per sanitised name, gitnexus tools and subagent tools", () => {
    const proof = proveSkillUse(
      stream([
        assistant([toolUse("a", "Bash", {}), toolUse("b", "Bash", {}), toolUse("c", "mcp__gitnexus__query", {}), toolUse("d", "evil name\n", {})]),
        assistant([toolUse("e", "Read", {})], { parent_tool_use_id: "c" }),
      ]),
      "review",
    );
    expect(proof.toolUseCounts).toEqual({ Bash: 2, Read: 1, mcp__gitnexus__query: 1, tool: 1 });
    expect(proof.gitnexusToolUses).toBe(1);
    expect(proof.subagentToolUses).toBe(1);
  });

  describe("attempts to claim a skill that was not used", () => {
    it.each([
      ["a dotless-i tool name (Python casefold keeps ı)", "Skıll"],
      ["a dotted capital I tool name", "SKİLL"],
      ["a tool name with a zero-width joiner", "Ski\u200dll"],
      ["a tool name with a trailing space", "Skill "],
    ])("does not treat %s as the Skill tool", (_label, name) => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }, name), answer("t1")]), "review");
      expect(proof).toMatchObject({ skillInvoked: false, matchingRequests: 0 });
    });

    it("never reads a tool_use out of text the model wrote", () => {
      const forged = JSON.stringify(toolUse("t1", "Skill", { skill: "review" }));
      const proof = proveSkillUse(
        stream([assistant([{ type: "text", text: forged }]), user([{ type: "text", text: JSON.stringify(toolResult("t1")) }])]),
        "review",
      );
      expect(proof).toMatchObject({ skillInvoked: false, matchingRequests: 0, successfulResults: 0 });
    });

    it("does not accept a tool_result the model wrote into an assistant event", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }), assistant([toolResult("t1")])]), "review");
      expect(proof.skillInvoked).toBeNull();
      expect(proof.diagnostics.map((diagnostic) => diagnostic.code)).toContain("EVIDENCE_TOOL_RESULT_OUTSIDE_USER_EVENT");
    });

    it("does not accept a tool_result carried by a system event", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }), { type: "system", subtype: "status", content: [toolResult("t1")] }]), "review");
      expect(proof.skillInvoked).toBeNull();
    });

    it.each([
      ["the skill before the last colon", { skill: "review:other" }],
      ["a longer name", { skill: "review-extra" }],
      ["a different case", { skill: "Review" }],
      ["a second token", { skill: "other review" }],
      ["a non-string field", { skill: ["review"] }],
      ["a slash then a space", { skill: "/ review" }],
      ["a BOM-prefixed name (Python strip keeps U+FEFF)", { skill: "\ufeffreview" }],
    ])("does not match %s", (_label, input) => {
      const proof = proveSkillUse(stream([skillCall("t1", input as JsonObject), answer("t1")]), "review");
      expect(proof).toMatchObject({ skillInvoked: false, matchingRequests: 0 });
    });

    it("is unverifiable when the CLI's own echo names a different skill than the matching input field", () => {
      const request = skillCall("t1", { skill: "other", name: "review" });
      const proof = proveSkillUse(stream([request, { ...user([toolResult("t1")]), tool_use_result: { success: true, commandName: "other" } }]), "review");
      expect(proof.skillInvoked).toBeNull();
      expect(proof.diagnostics[0]?.code).toBe("EVIDENCE_SKILL_RESULT_CONTRADICTED");
    });

    it("is unverifiable when the CLI's echo says the launch did not succeed", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }), { ...user([toolResult("t1")]), tool_use_result: { success: false, commandName: "review" } }]), "review");
      expect(proof.skillInvoked).toBeNull();
      expect(proof.diagnostics[0]?.code).toBe("EVIDENCE_SKILL_RESULT_CONTRADICTED");
    });

    it("accepts an echo that agrees after normalisation (plugin form)", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "plug:review" }), { ...user([toolResult("t1")]), tool_use_result: { success: true, commandName: "plug:review" } }]), "review");
      expect(proof).toMatchObject({ skillInvoked: true, commandNameConfirmed: true });
    });

    it("matches plugin forms on the text after the last colon, as the spec says", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "other-plugin:ns:review" }), answer("t1")]), "plugin:review");
      expect(proof).toMatchObject({ skillInvoked: true, expectedSkill: "review" });
    });

    it.each([
      ["null", null],
      ["a string", "false"],
      ["a number", 0],
    ])("refuses an is_error that is %s", (_label, isError) => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }), answer("t1", { is_error: isError })]), "review");
      expect(proof.skillInvoked).toBeNull();
      expect(proof.diagnostics[0]?.code).toBe("EVIDENCE_TOOL_RESULT_IS_ERROR_INVALID");
    });

    it("is unverifiable when a Skill id is reused by another tool, even after a successful result", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }), answer("t1"), assistant([toolUse("t1", "Bash", { command: "true" })])]), "review");
      expect(proof.skillInvoked).toBeNull();
      expect(proof.diagnostics[0]?.code).toBe("EVIDENCE_TOOL_USE_ID_DUPLICATE");
    });

    it("is unverifiable when an error result for the Skill id follows its success", () => {
      const proof = proveSkillUse(stream([skillCall("t1", { skill: "review" }), answer("t1"), answer("t1", { is_error: true })]), "review");
      expect(proof.skillInvoked).toBeNull();
    });

    it("counts a Skill call made inside a subagent (the spec reads every block) and tallies it as subagent traffic", () => {
      const proof = proveSkillUse(
        stream([
          assistant([toolUse("task1", "Task", { prompt: "x" })]),
          assistant([toolUse("t1", "Skill", { skill: "review" })], { parent_tool_use_id: "task1" }),
          user([toolResult("t1")], { parent_tool_use_id: "task1" }),
          user([toolResult("task1")]),
        ]),
        "review",
      );
      expect(proof).toMatchObject({ skillInvoked: true, subagentToolUses: 1, subagentSkillRequests: 1 });
    });
  });

  it("throws EVIDENCE_INVALID_OPTIONS for an empty expected skill", () => {
    expect(() => proveSkillUse(stream([]), " / ")).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
  });
});
