import { describe, expect, it } from "vitest";
import { createInOrderCommitter, runCellPool } from "./run-cell-pool.js";

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("runCellPool", () => {
  it("runs every item, never more than `workers` at once", async () => {
    let running = 0;
    let peak = 0;
    const outcome = await runCellPool([30, 10, 20, 5, 15], 2, new AbortController().signal, async (ms, index) => {
      running += 1;
      peak = Math.max(peak, running);
      await tick(ms);
      running -= 1;
      return index;
    });
    expect(outcome.failure).toBeNull();
    expect([...outcome.results].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it("when one item throws, waits for the items still running and starts no new one", async () => {
    const events: string[] = [];
    const boom = new Error("harness bug");
    const outcome = await runCellPool(["slow", "bad", "later", "never"], 2, new AbortController().signal, async (item) => {
      events.push(`start ${item}`);
      if (item === "bad") {
        await tick(10);
        throw boom;
      }
      await tick(item === "slow" ? 150 : 5);
      events.push(`end ${item}`);
      return item;
    });
    events.push("pool settled");
    expect(outcome.failure).toEqual({ index: 1, error: boom });
    expect(outcome.results).toEqual(["slow"]);
    // The slow cell finished before the pool returned (its gateway and work dir were still there), nothing new started.
    expect(events).toEqual(["start slow", "start bad", "end slow", "pool settled"]);
  });

  it("starts nothing once the signal aborts, and lets the running item finish", async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const outcome = await runCellPool([0, 1, 2, 3], 1, controller.signal, async (item) => {
      started.push(item);
      if (item === 1) controller.abort();
      await tick(5);
      return item;
    });
    expect(started).toEqual([0, 1]);
    expect(outcome.results).toEqual([0, 1]);
    expect(outcome.failure).toBeNull();
  });

  it("never starts an item more than `window` ahead of the oldest unfinished one, and packs past finished ones", async () => {
    const started: number[] = [];
    const log: string[] = [];
    // Item 0 is slow; with window 3 items 1 and 2 may run beside it, item 3 must wait for item 0 even though workers are free.
    const outcome = await runCellPool([80, 5, 5, 5, 5], 3, new AbortController().signal, async (ms, index) => {
      started.push(index);
      log.push(`start ${index}`);
      await tick(ms);
      log.push(`end ${index}`);
      return index;
    }, { window: 3 });
    expect(outcome.failure).toBeNull();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(log.indexOf("start 3")).toBeGreaterThan(log.indexOf("end 0"));
    expect(log.indexOf("start 2")).toBeLessThan(log.indexOf("end 0"));
  });

  it("keeps all workers busy across what would be wave boundaries when the window allows", async () => {
    let running = 0;
    let peak = 0;
    const log: string[] = [];
    // Waves of 2 would wait for the slow item 0 before starting item 2; the packed pool starts items 2 and 3 beside it.
    await runCellPool([60, 5, 5, 5], 2, new AbortController().signal, async (ms, index) => {
      running += 1;
      peak = Math.max(peak, running);
      log.push(`start ${index}`);
      await tick(ms);
      log.push(`end ${index}`);
      running -= 1;
      return ms;
    }, { window: 4 });
    expect(peak).toBe(2);
    expect(log.indexOf("start 3")).toBeLessThan(log.indexOf("end 0"));
  });

  it("holds an item back while mayStart refuses it, asks again after each finish, and never stalls with nothing running", async () => {
    const log: string[] = [];
    let allowed = 1;
    await runCellPool([30, 5, 5], 3, new AbortController().signal, async (ms, index) => {
      log.push(`start ${index}`);
      await tick(ms);
      log.push(`end ${index}`);
      allowed = 2;
      return index;
    }, { mayStart: (index) => index <= allowed });
    // Item 2 waits for the first finish (item 1); nothing is refused while no item runs.
    expect(log.indexOf("start 2")).toBeGreaterThan(log.indexOf("end 1"));
    expect(log.indexOf("start 2")).toBeLessThan(log.indexOf("end 0"));
    const never = await runCellPool([1, 2], 2, new AbortController().signal, async (item) => item, { mayStart: () => false });
    expect([...never.results].sort()).toEqual([1, 2]);
  });

  it("starts the highest-priority item the window allows first, ties in index order, and never leaves the window", async () => {
    const started: number[] = [];
    // Priorities 1,1,2,1,2,1: with window 4 the first picks are 2 (highest in 0..3), then 0; item 4 (priority 2) enters
    // the window only once item 0 has finished, and then goes before the lower-priority item 1.
    const rank = [1, 1, 2, 1, 2, 1];
    const outcome = await runCellPool([20, 40, 40, 5, 5, 5], 2, new AbortController().signal, async (ms, index) => {
      started.push(index);
      await tick(ms);
      return index;
    }, { window: 4, priority: (index) => rank[index] as number });
    expect(outcome.failure).toBeNull();
    expect(started).toEqual([2, 0, 4, 1, 3, 5]);
  });

  it("starts a lower-priority item that mayStart allows rather than wait for a higher one it refuses", async () => {
    const started: number[] = [];
    let finished = 0;
    const rank = [0, 1, 3, 2];
    await runCellPool([5, 30, 30, 5], 2, new AbortController().signal, async (ms, index) => {
      started.push(index);
      await tick(ms);
      finished += 1;
      return index;
    }, { priority: (index) => rank[index] as number, mayStart: (index) => index !== 3 || finished >= 1 });
    // Item 2 goes first; item 3 outranks item 1 but is refused while nothing has finished, so item 1 runs beside item
    // 2; after the first finish item 3 goes before item 0.
    expect(started).toEqual([2, 1, 3, 0]);
  });

  it("with nothing running and mayStart refusing everything, starts the oldest unfinished item, not the highest-ranked", async () => {
    const started: number[] = [];
    await runCellPool([1, 1, 1], 1, new AbortController().signal, async (_ms, index) => {
      started.push(index);
      return index;
    }, { priority: (index) => index, mayStart: (index) => index === 0 });
    // Without mayStart the order would be 2, 1, 0: a later item must never start ahead of rows the breaker needs.
    expect(started).toEqual([0, 1, 2]);
  });

  it("runs nothing for an empty list or zero workers", async () => {
    const run = async (): Promise<number> => 1;
    expect(await runCellPool([], 3, new AbortController().signal, run)).toEqual({ results: [], failure: null });
    expect(await runCellPool([1], 0, new AbortController().signal, run)).toEqual({ results: [], failure: null });
  });
});

describe("createInOrderCommitter", () => {
  it("commits in index order while items finish in any order", async () => {
    const committed: number[] = [];
    const committer = createInOrderCommitter<string>(async (_value, index) => {
      await tick(1);
      committed.push(index);
    });
    const outcome = await runCellPool([25, 5, 15, 1, 10], 3, new AbortController().signal, async (ms, index) => {
      await tick(ms);
      await committer.offer(index, `row ${index}`);
      return index;
    });
    await committer.drain();
    expect(outcome.results).not.toEqual([0, 1, 2, 3, 4]);
    expect(committed).toEqual([0, 1, 2, 3, 4]);
  });

  it("holds later values behind an unfinished one and drains past a gap left by a failed item", async () => {
    const committed: string[] = [];
    const committer = createInOrderCommitter<string>(async (value) => {
      committed.push(value);
    });
    await committer.offer(2, "c");
    await committer.offer(3, "d");
    expect(committed).toEqual([]);
    await committer.offer(0, "a");
    expect(committed).toEqual(["a"]);
    // Item 1 threw: its value never comes, and drain must not lose the ones behind it.
    await committer.drain();
    expect(committed).toEqual(["a", "c", "d"]);
    await expect(committer.offer(3, "again")).rejects.toThrow(/already committed/u);
  });
});
