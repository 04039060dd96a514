/**
 * Source of the supervisor process run with `node -e`: it starts LiteLLM in its own process group and kills that whole
 * group when its stdin (the liveness pipe) reaches EOF — which happens even when the runner is SIGKILLed — or on
 * SIGTERM/SIGINT. Exits 0 when LiteLLM ended cleanly or was cancelled, else 1. Kept as plain CommonJS text so it runs
 * from the built package without a TypeScript loader.
 */
export const SUPERVISOR_SCRIPT = String.raw`
"use strict";
const { spawn } = require("node:child_process");
const GRACE_MS = Number(process.argv[1]);
const [executable, ...args] = process.argv.slice(2);
let cancelled = false;
let child;
const killGroup = (signal) => {
  if (child === undefined || child.pid === undefined) return;
  try { process.kill(-child.pid, signal); } catch {}
};
const cancel = () => {
  if (cancelled) return;
  cancelled = true;
  killGroup("SIGTERM");
  setTimeout(() => killGroup("SIGKILL"), GRACE_MS).unref();
};
process.on("SIGTERM", cancel);
process.on("SIGINT", cancel);
process.on("SIGHUP", cancel);
process.stdin.on("data", () => {});
process.stdin.on("end", cancel);
process.stdin.on("close", cancel);
process.stdin.on("error", cancel);
try {
  child = spawn(executable, args, { stdio: ["ignore", "inherit", "inherit"], detached: true });
} catch (error) {
  process.stderr.write("[wfbench supervisor] cannot start " + executable + ": " + error.message + "\n");
  process.exit(1);
}
child.on("error", (error) => {
  process.stderr.write("[wfbench supervisor] cannot start " + executable + ": " + error.message + "\n");
  process.exit(1);
});
child.on("exit", (code, signal) => {
  // Workers LiteLLM forked may outlive it; the group dies with it either way.
  killGroup("SIGKILL");
  process.stderr.write("[wfbench supervisor] litellm exited code=" + code + " signal=" + signal + "\n");
  process.exit(cancelled || code === 0 ? 0 : 1);
});
`;
