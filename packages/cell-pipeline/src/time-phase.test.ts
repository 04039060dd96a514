import { describe, expect, it } from "vitest";
import type { CellDraft } from "./empty-row.js";
import { recordPhase, timePhase } from "./time-phase.js";

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("timePhase", () => {
  it("records a phase's wall time, sums a phase entered twice, and keeps the time of a step that threw", async () => {
    const draft = {} as CellDraft;
    expect(await timePhase(draft, "verify", async () => {
      await wait(20);
      return "ok";
    })).toBe("ok");
    await expect(timePhase(draft, "oracle", async () => {
      await wait(10);
      throw new Error("oracle sandbox refused");
    })).rejects.toThrow("oracle sandbox refused");
    recordPhase(draft, "verify", 5.4);
    const timings = draft.timings_ms ?? {};
    expect(timings["verify"]).toBeGreaterThanOrEqual(24);
    expect(timings["oracle"]).toBeGreaterThanOrEqual(9);
    expect(Number.isInteger(timings["verify"])).toBe(true);
  });
});
