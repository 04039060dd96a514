// Median and p95 latency of a streamed scripted reply (CLI-sized ~44 KB body), and of one real CLI smoke session.
// Run: node --conditions=@wfbench/source --import tsx packages/scripted-model/bench/serve-latency.ts [requests] [cli-runs]
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { spawn } from "node:child_process";
import { resolveClaudeCli } from "@wfbench/claude-cli";
import { loadScript } from "../src/load-script.js";
import { startScriptedModel } from "../src/start-scripted-model.js";

const requests = Number(process.argv[2] ?? "300");
const cliRuns = Number(process.argv[3] ?? "3");

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;
}

const loaded = await loadScript(new URL("../scripts/smoke-skill-write-bash.yaml", import.meta.url).pathname);
if (!loaded.ok) throw new Error(loaded.error.message);
const root = await mkdtemp(join(tmpdir(), "sm-bench-"));
const server = await startScriptedModel({ script: loaded.value, listen: { host: "127.0.0.1", port: 0 }, requestLogPath: join(root, "log.jsonl") });
try {
  const body = JSON.stringify({
    model: "m",
    stream: true,
    max_tokens: 5,
    tools: Array.from({ length: 12 }, (_, i) => ({ name: `tool${i}`, description: "x".repeat(3000), input_schema: { type: "object" } })),
    messages: [{ role: "user", content: "WFBENCH-SMOKE-7f3a" }],
  });
  const times: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const started = performance.now();
    const response = await fetch(`${server.baseUrl}/v1/messages?beta=true`, { method: "POST", headers: { "content-type": "application/json" }, body });
    await response.text();
    times.push(performance.now() - started);
  }
  console.log(`streamed reply, ${(body.length / 1024).toFixed(0)} KB body, fsynced log: median ${percentile(times, 0.5).toFixed(2)} ms, p95 ${percentile(times, 0.95).toFixed(2)} ms over ${requests}`);

  const cli = await resolveClaudeCli();
  const sessions: number[] = [];
  for (let run = 0; run < cliRuns; run += 1) {
    const repo = join(root, `repo${run}`);
    await mkdir(join(repo, ".claude/skills/smoke-note"), { recursive: true });
    await writeFile(join(repo, ".claude/skills/smoke-note/SKILL.md"), "---\nname: smoke-note\ndescription: smoke\n---\nbody\n");
    await mkdir(join(root, `home${run}`));
    const home = join(root, `home${run}`);
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        cli.path,
        ["-p", "WFBENCH-SMOKE-7f3a", "--model", "claude-sonnet-4-5", "--output-format", "stream-json", "--verbose", "--setting-sources", "project", "--tools", "Bash,Read,Edit,Write,Glob,Grep,Skill", "--permission-mode", "dontAsk", "--allowedTools", "Skill,Write,Bash", "--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}', "--max-turns", "8", "--no-session-persistence"],
        {
          cwd: repo,
          stdio: "ignore",
          env: { PATH: "/usr/bin:/bin", HOME: home, CLAUDE_CONFIG_DIR: join(home, ".cfg"), ANTHROPIC_BASE_URL: server.baseUrl, ANTHROPIC_API_KEY: "dummy", CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
        },
      );
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`claude exited ${String(code)}`));
      });
    });
    sessions.push(performance.now() - started);
  }
  if (cliRuns > 0) console.log(`CLI smoke session (4 requests): median ${percentile(sessions, 0.5).toFixed(0)} ms over ${cliRuns}`);
} finally {
  await server.close();
  await rm(root, { recursive: true, force: true });
}
