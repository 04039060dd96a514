import { describe, expect, it } from "vitest";
import { runEvolve, type EvolveHost } from "./run-evolve.js";

function host(overrides: Partial<EvolveHost> & { clock?: number[] } = {}): EvolveHost & { out: string[]; err: string[]; order: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const order: string[] = [];
  const clock = overrides.clock ?? [0];
  let tick = 0;
  return {
    cwd: "/repo",
    env: {},
    now: () => new Date("2026-01-01T00:00:00Z"),
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    monotonicNowMs: () => {
      order.push("clock");
      return clock[Math.min(tick++, clock.length - 1)] ?? 0;
    },
    readUptime: () => {
      order.push("uptime");
      return "100.00 1.00";
    },
    ...overrides,
    out,
    err,
    order,
  };
}

const BASE = ["--tasks", "t.yaml", "--model", "claude-sonnet-4-5"];

describe("runEvolve", () => {
  it("reads the clock, then /proc/uptime, before anything else", async () => {
    const h = host();
    await runEvolve(["--help"], h);
    expect(h.order.slice(0, 2)).toEqual(["clock", "uptime"]);
    expect(h.out.join("")).toMatch(/^Usage: wfbench evolve/u);
  });

  it("maps a usage error to 2 and names the fix", async () => {
    const h = host();
    expect(await runEvolve(["--tasks", "t.yaml"], h)).toBe(2);
    expect(h.err.join("")).toMatch(/--model is required/u);
  });

  it("refuses the first paid step when under 600 s of the cap are left", async () => {
    // The cap is 700 s; 150 s pass between the clock start and the proposer check.
    const h = host({ clock: [0, 150_000] });
    expect(await runEvolve([...BASE, "--max-runtime-seconds", "700"], h)).toBe(1);
    expect(h.err.join("")).toMatch(/the generation-0 proposer not started: 550 s/u);
  });

  it("reads CI and the EVENTBRIDGE knobs from the host environment", async () => {
    const h = host({ env: { CI: "true", EVENTBRIDGE_INSTANCE_WINDOW_SECONDS: "600", EVENTBRIDGE_STOP_RESERVE_SECONDS: "0" } });
    expect(await runEvolve([...BASE, "--max-runtime-from-instance-window"], h)).toBe(2);
    expect(h.err.join("")).toMatch(/leaves 500 s/u);
  });

  it("needs the host's wfbench command before any step", async () => {
    const h = host();
    expect(await runEvolve(BASE, h)).toBe(1);
    expect(h.err.join("")).toMatch(/no wfbench command/u);
  });
});
