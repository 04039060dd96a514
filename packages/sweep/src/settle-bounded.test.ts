import { describe, expect, it } from "vitest";
import { settleBounded } from "./settle-bounded.js";

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("settleBounded", () => {
  it("keeps at most `limit` steps in flight and returns no error when every step succeeds", async () => {
    let running = 0;
    let peak = 0;
    const errors = await settleBounded([5, 1, 3, 2], 2, async (ms) => {
      running += 1;
      peak = Math.max(peak, running);
      await tick(ms);
      running -= 1;
    });
    expect(errors).toEqual([]);
    expect(peak).toBe(2);
  });

  it("reports failures in item order, waits for the started steps, and starts none after a failure", async () => {
    const started: number[] = [];
    const settled: number[] = [];
    // Item 1 fails fast while item 0 is still running and will fail too; items 2 and 3 must never start.
    const errors = await settleBounded([0, 1, 2, 3], 2, async (item) => {
      started.push(item);
      await tick(item === 0 ? 30 : 1);
      settled.push(item);
      if (item <= 1) throw new Error(`item ${item}`);
    });
    expect(errors.map((error) => (error as Error).message)).toEqual(["item 0", "item 1"]);
    expect(started).toEqual([0, 1]);
    expect(settled.sort()).toEqual([0, 1]);
  });
});
