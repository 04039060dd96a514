#!/usr/bin/env node
// The evolve app's entry (`nx run evolve:run -- <flags>`): hands the process edge to the evolve loop and exits with
// its code. `wfbench evolve` (apps/runner) calls the same entry point with the same host.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { runEvolve, type EvolveHost } from "@wfbench/evolve-loop";

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
};

process.exitCode = runEvolve(process.argv.slice(2), host);
