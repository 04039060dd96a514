// `wfbench propose` through the installed entry point (bin/wfbench.mjs, from source): the real Claude Code CLI in the
// real bwrap sandbox behind the metering gateway, the scripted model playing a proposer trajectory, on a temporary git
// repository that holds the demo skills beside a copy of tasks/ and oracles/. Judged from what lands on the host.
import { spawn } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCandidateOverlay } from "@wfbench/cell-pipeline";
import { loadScript, startScriptedModel } from "@wfbench/scripted-model";
import { REPO_ROOT, probeRunnerTools } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const FIXTURES = join(REPO_ROOT, "apps/runner/test/fixtures/propose");
const SKILLS = { plan: "demo-plan", work: "demo-work", review: "demo-review" };

function wfbench(command: "propose" | "run", args: readonly string[], extraEnv: Readonly<Record<string, string>> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "apps/runner/bin/wfbench.mjs"), command, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root", WFBENCH_FROM_SOURCE: "1", ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const propose = (args: readonly string[], extraEnv: Readonly<Record<string, string>> = {}) => wfbench("propose", args, extraEnv);

/** Every tool call of a stored transcript with the text of its result. */
function toolCalls(outDir: string): { name: string; input: Record<string, unknown>; result: string }[] {
  const dir = join(outDir, "transcripts");
  const [file] = readdirSync(dir);
  if (file === undefined) throw new Error("no transcript stored");
  const calls = new Map<string, { name: string; input: Record<string, unknown>; result: string }>();
  for (const line of readFileSync(join(dir, file), "utf8").trimEnd().split("\n")) {
    const event = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
    if (!Array.isArray(event.message?.content)) continue;
    for (const block of event.message.content as Record<string, unknown>[]) {
      if (block["type"] === "tool_use") calls.set(String(block["id"]), { name: String(block["name"]), input: block["input"] as Record<string, unknown>, result: "" });
      if (block["type"] === "tool_result") {
        const call = calls.get(String(block["tool_use_id"]));
        const content = block["content"];
        if (call !== undefined) call.result += typeof content === "string" ? content : JSON.stringify(content);
      }
    }
  }
  return [...calls.values()];
}

describe.skipIf(tools.skip)("wfbench propose (offline, scripted proposer)", () => {
  let root: string;
  let repo: string;
  const common = (out: string, script: string): string[] => ["--tasks", join(repo, "tasks/demo.yaml"), "--repo-root", repo, "--out", out, "--model", "claude-sonnet-4-5", "--effort", "high", "--timeout", "300", "--profile", "implementation", "--script", script];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "wfbench-propose-test-"));
    repo = join(root, "repo");
    cpSync(join(REPO_ROOT, "tasks/demo/repos/mathlib"), repo, { recursive: true });
    cpSync(join(REPO_ROOT, "tasks"), join(repo, "tasks"), { recursive: true });
    cpSync(join(REPO_ROOT, "oracles"), join(repo, "oracles"), { recursive: true });
    const git = (...args: string[]): void => void execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: repo, stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "demo skills with tasks and oracles");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("checks an Anthropic-compatible endpoint with one canary before the session: a refused key and an unknown model stop there; a working key runs it and no file holds the key", async () => {
    const key = "sk-ant-wfbench-propose-int-KEY-41d7";
    const script = await loadScript(join(REPO_ROOT, "tasks/demo/scripted-proposer.yaml"));
    if (!script.ok) throw new Error(script.error.message);
    const endpoint = await startScriptedModel({ script: script.value, listen: { host: "127.0.0.1", port: 0 }, requireApiKey: key, knownModels: ["claude-sonnet-4-5"] });
    try {
      const real = (out: string, model: string): string[] => ["--tasks", join(repo, "tasks/demo.yaml"), "--repo-root", repo, "--out", out, "--model", model, "--effort", "high", "--timeout", "300", "--profile", "implementation", "--base-url", endpoint.baseUrl];
      const refused = await propose(real(join(root, "out-key-refused"), "claude-sonnet-4-5"), { WFBENCH_ANTHROPIC_API_KEY: `${key}-wrong` });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("PROPOSER_UPSTREAM_REFUSED: upstream canary: ");
      expect(refused.stderr).toContain("refused the key: check WFBENCH_ANTHROPIC_API_KEY");
      expect(existsSync(join(root, "out-key-refused/transcripts"))).toBe(false);
      expect(JSON.parse(readFileSync(join(root, "out-key-refused/proposer-session.json"), "utf8"))).toMatchObject({ ok: false, upstream_canary: { outcome: "key_refused", http_status: 401 } });
      const unknown = await propose(real(join(root, "out-model-unknown"), "claude-nonexistent-9"), { WFBENCH_ANTHROPIC_API_KEY: key });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("does not serve --model claude-nonexistent-9: pass a model id this endpoint serves");
      expect(existsSync(join(root, "out-model-unknown/transcripts"))).toBe(false);
      // Both refusals cost one canary request each; no session reached the endpoint.
      expect(endpoint.requests.length).toBe(2);
      const out = join(root, "out-real-endpoint");
      const run = await propose(real(out, "claude-sonnet-4-5"), { WFBENCH_ANTHROPIC_API_KEY: key });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      // The canary and every session turn presented the real key (the endpoint answers 401 otherwise).
      expect(endpoint.requests.slice(2).map((entry) => entry.outcome.kind)).not.toContain("unauthorized");
      expect(endpoint.requests.length).toBeGreaterThan(3);
      expect(JSON.parse(readFileSync(join(out, "proposer-session.json"), "utf8"))).toMatchObject({ ok: true, upstream: "anthropic-compatible", upstream_canary: { outcome: "ok" } });
      const files = execFileSync("find", [out, "-type", "f"], { encoding: "utf8" }).trim().split("\n");
      expect(files.length).toBeGreaterThan(3);
      for (const file of files) expect(readFileSync(file).includes(key), file).toBe(false);
    } finally {
      await endpoint.close();
    }
  }, 300_000);

  it("writes the overlay (work-v2's bytes), proposal.md and the redacted record, owner-only, and exits 0", async () => {
    const out = join(root, "out-ok");
    const learnings = join(root, "learnings.jsonl");
    writeFileSync(learnings, `${JSON.stringify({ skill: "demo-work", date: "2026-11-30", task: "t", friction: "f", suggestion: "s" })}\nnot json\n${JSON.stringify({ skill: "other", friction: "x" })}\n`);
    const run = await propose([...common(out, join(REPO_ROOT, "tasks/demo/scripted-proposer.yaml")), "--learnings", learnings]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const skill = join(out, "overlay/.claude/skills/demo-work/SKILL.md");
    expect(readFileSync(skill).equals(readFileSync(join(REPO_ROOT, "tasks/demo/overlays/work-v2/.claude/skills/demo-work/SKILL.md")))).toBe(true);
    const overlay = await readCandidateOverlay(join(out, "overlay"), SKILLS);
    expect(overlay.ok && overlay.value.skills).toEqual(["demo-work"]);
    expect(overlay.ok && overlay.value.requiredArms).toContain("candidate_workflow");
    expect(lstatSync(out).mode & 0o777).toBe(0o700);
    expect(lstatSync(skill).mode & 0o077).toBe(0);
    const proposal = lstatSync(join(out, "proposal.md"));
    expect(proposal.isFile() && (proposal.mode & 0o777) === 0o600 && proposal.size > 0 && proposal.size <= 256 * 1024).toBe(true);
    expect(readFileSync(join(out, "proposal.md"), "utf8")).toContain("checklist-first");
    const record = JSON.parse(readFileSync(join(out, "proposer-session.json"), "utf8")) as Record<string, unknown>;
    expect(lstatSync(join(out, "proposer-session.json")).mode & 0o777).toBe(0o600);
    expect(record).toMatchObject({ ok: true, profile: "implementation", upstream: "scripted", evaluated_skills: ["demo-plan", "demo-work"], session: { ok: true } });
    expect(record["hidden_paths"]).toEqual(["oracles", "tasks"]);
    // The session had Read, Grep, Glob and Bash only, and played every scripted turn without a refused tool call.
    const transcript = readFileSync(join(out, "transcripts", readdirSync(join(out, "transcripts"))[0] as string), "utf8");
    const init = transcript.split("\n").map((line) => (line === "" ? {} : (JSON.parse(line) as Record<string, unknown>))).find((event) => event["subtype"] === "init");
    expect([...((init?.["tools"] as string[] | undefined) ?? [])].sort()).toEqual(["Bash", "Glob", "Grep", "Read"]);
    expect((init?.["mcp_servers"] as unknown[] | undefined) ?? []).toEqual([]);
    const calls = toolCalls(out);
    expect(calls.map((call) => call.name)).toEqual(["Read", "Read", "Bash", "Bash"]);
    expect(calls.some((call) => /denied/iu.test(call.result))).toBe(false);
    // The evidence reached the session read-only: the selected rows the script read.
    expect(calls[0]?.result).toContain("[]");
    expect(existsSync(join(out, "evidence"))).toBe(false);
  }, 240_000);

  it("the review profile writes the review skill only (review-v2's bytes) and needs candidate_review", async () => {
    const out = join(root, "out-review");
    const args = common(out, join(REPO_ROOT, "tasks/demo/scripted-proposer.yaml"));
    args[args.indexOf("implementation")] = "review";
    const run = await propose(args);
    expect(run.code).toBe(0);
    const skill = join(out, "overlay/.claude/skills/demo-review/SKILL.md");
    expect(readFileSync(skill).equals(readFileSync(join(REPO_ROOT, "tasks/demo/overlays/review-v2/.claude/skills/demo-review/SKILL.md")))).toBe(true);
    const overlay = await readCandidateOverlay(join(out, "overlay"), SKILLS);
    expect(overlay.ok && overlay.value.requiredArms).toEqual(["review", "candidate_review"]);
    expect(JSON.parse(readFileSync(join(out, "proposer-session.json"), "utf8"))).toMatchObject({ ok: true, profile: "review", evaluated_skills: ["demo-review"] });
  }, 240_000);

  it("stages a real sweep's rows, transcripts and patches as the read-only /evidence the session reads", async () => {
    const sweep = join(root, "sweep");
    const ran = await wfbench("run", ["--arms", "baseline", "--workers", "2", "--effort", "high", "--timeout", "300", "--out", sweep]);
    expect(ran.code).toBe(0);
    const out = join(root, "out-evidence");
    const prior = join(root, "prior.md");
    writeFileSync(prior, "# the previous proposal\n");
    const run = await propose([...common(out, join(REPO_ROOT, "tasks/demo/scripted-proposer.yaml")), "--evidence-results", sweep, "--prior-proposal", prior]);
    expect(run.code).toBe(0);
    const record = JSON.parse(readFileSync(join(out, "proposer-session.json"), "utf8")) as { evidence_rows: number; evidence_files: { name: string }[] };
    // Three baseline rows: the two unresolved ones (by task) first, then the resolved one.
    expect(record.evidence_rows).toBe(3);
    expect(record.evidence_files.map((file) => file.name).sort()).toEqual(["gate-summary.json", "learnings.json", "patch-0.diff", "patch-1.diff", "patch-2.diff", "prior-proposal.md", "selected-rows.json", "transcript-0-0.jsonl", "transcript-1-0.jsonl", "transcript-2-0.jsonl"]);
    const seen = toolCalls(out)[0]?.result ?? "";
    expect(seen.indexOf('"task": "demo-clamp"')).toBeGreaterThan(-1);
    expect(seen.indexOf('"task": "demo-clamp"')).toBeLessThan(seen.indexOf('"task": "demo-ledger-currency"'));
    expect(seen.indexOf('"task": "demo-ledger-currency"')).toBeLessThan(seen.indexOf('"task": "demo-ledger-rounding"'));
    expect(seen).toContain('"transcript_files"');
  }, 400_000);

  it("a hostile proposer finds no task, oracle or label bytes, and every attempt is in the stored transcript", async () => {
    const out = join(root, "out-hostile");
    const run = await propose(common(out, join(FIXTURES, "hostile-proposer.yaml")));
    expect(run.code).toBe(0);
    const calls = toolCalls(out);
    const commands = calls.filter((call) => call.name === "Bash").map((call) => String(call.input["command"]));
    for (const attempt of ["cat /workspace/tasks/demo.yaml", "ls -la /workspace/oracles", "find / -xdev", "git -C /workspace log --all"]) {
      expect(commands.some((command) => command.startsWith(attempt))).toBe(true);
    }
    const results = calls.map((call) => call.result).join("\n");
    expect(results).toContain("No such file or directory");
    // Nothing of the suite, the oracles or the labels came back: not a prompt, an oracle file's bytes or a file name.
    const suite = readFileSync(join(REPO_ROOT, "tasks/demo.yaml"), "utf8");
    const prompt = /prompt: >-\n\s+(.+)\n/u.exec(suite)?.[1] ?? "";
    expect(prompt.length).toBeGreaterThan(20);
    expect(results).not.toContain(prompt.slice(0, 40));
    for (const name of readdirSync(join(REPO_ROOT, "oracles/demo"))) {
      expect(results).not.toContain(name);
      const bytes = readFileSync(join(REPO_ROOT, "oracles/demo", name), "utf8");
      const probe = bytes.split("\n").find((line) => line.trim().length > 30) ?? "";
      if (probe !== "") expect(results).not.toContain(probe.trim());
    }
    expect(results).not.toContain("demo.yaml\n");
    expect(results).not.toContain("review.labels");
  }, 240_000);

  it("a session that writes no overlay exits 1 and says what was expected", async () => {
    const out = join(root, "out-none");
    const run = await propose(common(out, join(FIXTURES, "no-overlay-proposer.yaml")));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the proposer wrote no overlay: expected complete replacement files under /workspace/.wfbench-output/overlay/.claude/skills/<skill>/");
    expect(existsSync(join(out, "overlay"))).toBe(false);
    expect(existsSync(join(out, "proposal.md"))).toBe(false);
    const record = JSON.parse(readFileSync(join(out, "proposer-session.json"), "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({ ok: false, session: { ok: true } });
  }, 240_000);

  it("an overlay byte-identical to the incumbent skill exits 1: it would measure nothing", async () => {
    const out = join(root, "out-identical");
    const run = await propose(common(out, join(FIXTURES, "identical-proposer.yaml")));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the overlay is byte-identical to the incumbent skills");
    expect(existsSync(join(out, "overlay"))).toBe(false);
  }, 240_000);

  it("refuses bad usage with exit 2 before any session: an existing --out, a missing flag, an unknown profile", async () => {
    const out = join(root, "out-ok-exists");
    cpSync(join(FIXTURES), out, { recursive: true });
    const exists = await propose(common(out, join(REPO_ROOT, "tasks/demo/scripted-proposer.yaml")));
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain("pass a directory that does not exist yet");
    const missing = await propose(["--tasks", join(repo, "tasks/demo.yaml")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--repo-root is required");
    const profile = await propose([...common(join(root, "out-profile"), join(REPO_ROOT, "tasks/demo/scripted-proposer.yaml")).slice(0, -4), "--profile", "plan", "--script", "x"]);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toContain('--profile "plan" is not one of implementation, review');
  }, 120_000);
});
