#!/usr/bin/env node
// The installed `wfbench` command. It runs the built CLI (dist/cli.js) when there is one; a fresh clone has no build,
// so it then runs the TypeScript source in this process through tsx, resolving the workspace packages to their source
// (the `@wfbench/source` export condition), exactly as `nx run runner:bench` does. WFBENCH_FROM_SOURCE=1 forces the
// source even when a build exists (the tests use it, so they exercise the tree under test, never a stale build).
import { existsSync } from "node:fs";
import { register } from "node:module";

const built = new URL("../dist/cli.js", import.meta.url);
const fromSource = process.env["WFBENCH_FROM_SOURCE"] === "1" || !existsSync(built);

if (fromSource) {
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    process.stderr.write("wfbench: no build (apps/runner/dist) and no tsx to run the source: run `npm ci` at the workspace root, or `npx nx run runner:build`\n");
    process.exit(2);
  }
  // The loader hooks run on their own thread, which copies process.env when the first hook is registered, and tsx
  // spawns its esbuild service from there with that copy: credential-named variables are held back until both hooks
  // are in, so an upstream key never reaches the esbuild process (real-upstream.int.test.ts reads its /proc environ).
  const held = Object.entries(process.env).filter(([name]) => /KEY|TOKEN|SECRET|PASSWORD/iu.test(name));
  for (const [name] of held) delete process.env[name];
  tsx.register();
  // Registered after tsx, so it runs first: every resolution also matches the packages' "@wfbench/source" exports.
  const hook = 'export async function resolve(specifier, context, next) { return next(specifier, { ...context, conditions: [...new Set([...context.conditions, "@wfbench/source"])] }); }';
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
  for (const [name, value] of held) process.env[name] = value;
  await import(new URL("../src/cli.ts", import.meta.url).href);
} else {
  await import(built.href);
}
