import { describe, expect, it } from "vitest";
import { createBuildMemo } from "./memoize-builds.js";

describe("createBuildMemo", () => {
  it("starts one build per key and shares it with concurrent callers", async () => {
    const memo = createBuildMemo<number>();
    let started = 0;
    let release: (value: number) => void = () => undefined;
    const build = () => {
      started += 1;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const a = memo.obtain("k", build);
    const b = memo.obtain("k", build);
    release(7);
    expect(await a).toBe(7);
    expect(await b).toBe(7);
    expect(started).toBe(1);
    expect(await memo.obtain("other", async () => 9)).toBe(9);
    expect(memo.size).toBe(2);
  });

  it("memoises a rejection, including a synchronous throw, and never retries", async () => {
    const memo = createBuildMemo<number>();
    let attempts = 0;
    const failing = (): Promise<number> => {
      attempts += 1;
      throw new Error("boom");
    };
    await expect(memo.obtain("k", failing)).rejects.toThrow("boom");
    await expect(memo.obtain("k", async () => 1)).rejects.toThrow("boom");
    expect(attempts).toBe(1);
  });
});
