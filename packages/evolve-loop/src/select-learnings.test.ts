import { describe, expect, it } from "vitest";
import { MAX_LEARNINGS, selectLearnings } from "./select-learnings.js";

describe("selectLearnings", () => {
  it("keeps candidate-skill rows as written and skips malformed lines, non-objects and other skills", () => {
    const text = [
      '{"skill":"gitnexus-work","date":"2026-07-25","task":"#1","friction":"slow","suggestion":"cache"}',
      "{not json",
      "[1,2]",
      '"gitnexus-work"',
      '{"skill":"some-other-skill","friction":"x"}',
      '{"skill":42}',
      "",
      '{"skill":"gitnexus-review","suggestion":"shorter"}',
      '{"skill":"gitnexus-plan"', // torn tail
    ].join("\n");
    expect(selectLearnings(text)).toEqual([
      { skill: "gitnexus-work", date: "2026-07-25", task: "#1", friction: "slow", suggestion: "cache" },
      { skill: "gitnexus-review", suggestion: "shorter" },
    ]);
  });

  it("keeps only the most recent 40", () => {
    const text = Array.from({ length: 45 }, (_, i) => JSON.stringify({ skill: "gitnexus-plan", n: i })).join("\n");
    const rows = selectLearnings(text);
    expect(rows).toHaveLength(MAX_LEARNINGS);
    expect(rows[0]).toEqual({ skill: "gitnexus-plan", n: 5 });
    expect(rows.at(-1)).toEqual({ skill: "gitnexus-plan", n: 44 });
  });
});
