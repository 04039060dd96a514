// Review workspace placeholders (reference §6.5) through the whole runner: the reviewer sees them in its read-only
// workspace, its git does not report them as local changes, the measured patch does not carry them, and a setup that
// plants a symlink where a placeholder goes is refused before the session. Judged from the transcripts and rows.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/review-placeholders", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-review-placeholders-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

beforeAll(async () => {
  if (tools.skip) return;
  result = await runRunner(["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--out", out, "--arms", "review"]);
  rows = readResultRows(out);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The text of every tool result in a transcript, in order. */
function toolResults(transcriptPath: string): string[] {
  const texts: string[] = [];
  for (const line of readFileSync(transcriptPath, "utf8").trimEnd().split("\n")) {
    const event = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
    if (event.type !== "user" || !Array.isArray(event.message?.content)) continue;
    for (const block of event.message.content as { type?: string; content?: unknown }[]) if (block.type === "tool_result" && typeof block.content === "string") texts.push(block.content);
  }
  return texts;
}

describe("review workspace placeholders", () => {
  it.skipIf(tools.skip)("let the review run in a workspace holding them, hidden from its git and left out of the patch", () => {
    expect(rows.map((row) => `${String(row["task"])}:${String(row["error_kind"])}`), result.stderr).toEqual(["ph-review:null", "ph-symlink:infra-error"]);
    const row = rows[0] ?? {};
    expect(row).toMatchObject({ ok: true, resolved: true, skill_invoked: true, sandbox_backend: "bwrap", review_weighted_f1: 1 });
    const artifacts = row["transcript_artifacts"] as { path: string }[];
    const listing = toolResults(join(out, artifacts[0]?.path ?? "")).find((text) => text.includes("STATUS-BEGIN")) ?? "";
    // Present in the workspace the session saw (a bind target must exist before the workspace is sealed) ...
    for (const name of [".mcp.json", ".env", ".github", ".vscode", "node_modules", "bunfig.toml", ".npmrc"]) expect(listing.split("\n"), name).toContain(name);
    expect(listing).toContain("MCP={}");
    // ... but git reports only the task's own local change: the placeholders are in the session's excludes.
    expect(listing.slice(listing.indexOf("STATUS-BEGIN"), listing.indexOf("STATUS-END")).trim().split("\n")).toEqual(["STATUS-BEGIN", " M src/math.js"]);
    // Removed before measuring: the stored patch and the churn are the task's change alone.
    const patch = readFileSync(join(out, String(row["patch_artifact"])), "utf8");
    expect(patch).toContain("src/math.js");
    for (const name of [".mcp.json", ".env", "bunfig.toml", "node_modules"]) expect(patch).not.toContain(name);
    expect(row["diff_files"]).toBe(1);
  });

  it.skipIf(tools.skip)("refuse a symlink planted where a placeholder goes, before the model is asked", () => {
    const row = rows[1] ?? {};
    expect(row).toMatchObject({ ok: false, resolved: false, error_kind: "infra-error", session_ids: [], wire_requests: 0 });
    expect(String(row["error_detail"])).toContain("review workspace placeholder .env: is a symlink");
    const requests = readFileSync(join(out, "scripted-model-requests.jsonl"), "utf8").trimEnd().split("\n").map((line) => (JSON.parse(line) as { trajectory: unknown }).trajectory);
    expect(new Set(requests)).toEqual(new Set(["ph-review"]));
  });
});
