import { describe, expect, it } from "vitest";
import { startHeartbeat } from "./heartbeat.js";

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("startHeartbeat", () => {
  it("beats on its interval until stopped, then never again", async () => {
    let beats = 0;
    const stop = startHeartbeat(10, () => (beats += 1));
    await tick(65);
    stop();
    const atStop = beats;
    expect(atStop).toBeGreaterThanOrEqual(2);
    await tick(40);
    expect(beats).toBe(atStop);
  });

  it("refuses a zero, negative or non-finite interval", () => {
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => startHeartbeat(bad, () => undefined)).toThrow(RangeError);
  });
});
