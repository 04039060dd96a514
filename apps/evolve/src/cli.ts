#!/usr/bin/env node
// The evolve app's entry (`nx run evolve:run -- <flags>`): hands the process edge to the evolve loop and exits with
// its code. `wfbench evolve` (apps/runner) calls the same entry point with the same host; both run each generation's
// sweep through the runner's bin (apps/runner/bin/wfbench.mjs), located from this file.
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { runEvolve, type EvolveHost } from "@wfbench/evolve-loop";

// src/cli.ts and dist/cli.js both sit one level below apps/evolve.
const wfbenchBin = fileURLToPath(new URL("../../runner/bin/wfbench.mjs", import.meta.url));
const stop = new AbortController();
process.once("SIGTERM", () => stop.abort());
process.once("SIGINT", () => stop.abort());

const host: EvolveHost = {
  cwd: process.cwd(),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  monotonicNowMs: () => performance.now(),
  readUptime: () => {
    try {
      return readFileSync("/proc/uptime", "utf8");
    } catch {
      return null;
    }
  },
  now: () => new Date(),
  wfbench: [process.execPath, wfbenchBin],
  harnessRoot: fileURLToPath(new URL("../../..", import.meta.url)),
  signal: stop.signal,
};

if (existsSync(wfbenchBin)) process.exitCode = await runEvolve(process.argv.slice(2), host);
else {
  process.stderr.write(`wfbench evolve: the runner's bin ${wfbenchBin} is missing: run from a whole checkout (apps/runner next to apps/evolve)\n`);
  process.exitCode = 1;
}
