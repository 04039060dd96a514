import { describe, expect, it } from "vitest";
import { MAX_LEARNINGS, selectLearnings } from "./select-learnings.js";

const SKILLS = ["demo-plan", "demo-work", "demo-review"];

describe("selectLearnings", () => {
  it("keeps candidate-skill rows as written and skips malformed lines, non-objects and other skills", () => {
    const text = [
      '{"skill":"demo-work","date":"2026-07-25","task":"#1","friction":"slow","suggestion":"cache"}',
      "{not json",
      "[1,2]",
      '"demo-work"',
      '{"skill":"some-other-skill","friction":"x"}',
      '{"skill":42}',
      "",
      '{"skill":"demo-review","suggestion":"shorter"}',
      '{"skill":"demo-plan"', // torn tail
    ].join("\n");
    expect(selectLearnings(text, SKILLS)).toEqual([
      { skill: "demo-work", date: "2026-07-25", task: "#1", friction: "slow", suggestion: "cache" },
      { skill: "demo-review", suggestion: "shorter" },
    ]);
  });

  it("keeps only the most recent 40", () => {
    const text = Array.from({ length: 45 }, (_, i) => JSON.stringify({ skill: "demo-plan", n: i })).join("\n");
    const rows = selectLearnings(text, SKILLS);
    expect(rows).toHaveLength(MAX_LEARNINGS);
    expect(rows[0]).toEqual({ skill: "demo-plan", n: 5 });
    expect(rows.at(-1)).toEqual({ skill: "demo-plan", n: 44 });
  });
});
