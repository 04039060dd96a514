#!/usr/bin/env node
// The project's test command: sync check, strict typecheck, lint (the package map included), then every project's
// vitest suite through Nx. Packages are built (Nx-cached) before the tests: the pack-and-import test installs dist.
// Vitest's own summary is not a line CI can read, so the per-project JSON reports are summed into
// one plain "N passed, N failed, N skipped" closing line.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const forwarded = process.argv.slice(2); // e.g. --projects=promotion-gate, or --affected handled below
const affected = forwarded.includes("--affected");
const selection = forwarded.filter((arg) => arg !== "--affected");
const env = { ...process.env, NX_DAEMON: "false", NX_NO_CLOUD: "true", NX_TUI: "false", FORCE_COLOR: "0" };
const reportPath = "test-results/vitest.json";

function nx(args) {
  const run = spawnSync("npx", ["nx", ...args], { cwd: root, env, stdio: "inherit" });
  return run.status ?? 1;
}

const projectDirs = ["packages", "apps", "tools"].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, group, entry.name)),
);
for (const dir of projectDirs) rmSync(join(dir, "test-results"), { recursive: true, force: true });

const mode = affected ? ["affected"] : ["run-many"];
let status = nx(["sync:check"]);
if (status === 0) status = nx([...mode, "-t", "typecheck", "--outputStyle=static", ...selection]);
// Lint failures count but do not hide the tests: both are reported.
let lintStatus = 1;
if (status === 0) lintStatus = nx([...mode, "-t", "lint", "--outputStyle=static", "--skip-nx-cache", ...selection]);
// Build failures count like lint failures; the tests still run so their own reports are not hidden.
let buildStatus = 1;
if (status === 0) buildStatus = nx([...mode, "-t", "build", "--outputStyle=static", ...selection]);
let testStatus = 1;
if (status === 0) {
  testStatus = nx([
    ...mode, "-t", "test", "--outputStyle=static", "--skip-nx-cache", ...selection,
    "--", "--reporter=default", "--reporter=json", `--outputFile.json=${reportPath}`,
  ]);
}

let passed = 0;
let failed = 0;
let skipped = 0;
const skippedNames = [];
for (const dir of projectDirs) {
  const file = join(dir, reportPath);
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    for (const test of suite.assertionResults ?? []) {
      if (test.status === "pending" || test.status === "skipped" || test.status === "todo") skippedNames.push(test.fullName);
    }
  }
}
if (skippedNames.length > 0) {
  console.log(`\nSkipped tests (${skippedNames.length}):`);
  for (const name of skippedNames) console.log(`  - ${name}`);
}
if (status !== 0) {
  console.log(status === 0 ? "" : "\nsync check or typecheck failed: no tests were run");
  failed += 1;
} else if (testStatus !== 0 && failed === 0) {
  // A suite that crashed before reporting still fails the run.
  failed += 1;
}
if (status === 0 && lintStatus !== 0) {
  console.log("\nlint failed (see the eslint output above): counted as one failure");
  failed += 1;
}
if (status === 0 && buildStatus !== 0) {
  console.log("\nbuild failed (see the tsup output above): counted as one failure");
  failed += 1;
}
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
