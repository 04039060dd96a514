// A suite's MCP servers through the real runner: the real CLI starts each declared server through the harness's relay,
// the server runs in its own sandbox (workspace read-only, no network), baseline keeps the tools and baseline_nomcp
// has none. Everything judged here is host evidence: the parent-captured transcripts, the rows, the patch artifacts
// and a loopback listener on the host that the hostile server tries to reach.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcp-servers", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

interface Event {
  type: string;
  subtype?: string;
  tools?: string[];
  mcp_servers?: { name: string; status: string }[];
  slash_commands?: string[];
  message?: { content?: unknown };
}
interface Row {
  [key: string]: unknown;
  task: string;
  arm: string;
  transcript_artifacts: { path: string }[];
}

const base = mkdtempSync(join(tmpdir(), "wfbench-mcp-"));
const out = join(base, "out");
let listener: Server | null = null;
let loopbackConnections = 0;
let exitCode: number | null = null;
let stderr = "";
let rows: Row[] = [];
const markerOut = join(base, "marker-out");
let leakyExit: number | null = null;
let leakyStderr = "";

/**
 * The suite fixture with its relative paths made absolute (the server and builder directories copied out of the
 * repository), the demo server bundled and the listener's port filled in; `marker` makes the builder leak a marker.
 */
function writeSuite(port: number, name: string, builderMode: "clean" | "marker"): string {
  const suite = parse(readFileSync(join(FIXTURE, "suite.yaml"), "utf8")) as {
    mcp_servers: { args: string[]; mounts: { source: string }[] }[];
    index_builder: { args: string[]; mounts: { source: string }[] };
    tasks: { repo: string }[];
  };
  const demoDir = join(base, "wfbench-demo");
  if (!existsSync(demoDir)) {
    mkdirSync(demoDir);
    const bundled = spawnSync(process.execPath, [join(REPO_ROOT, "packages/mcp-demo-server/scripts/bundle.mjs"), join(demoDir, "server.mjs")], { encoding: "utf8" });
    expect(bundled.status, bundled.stderr).toBe(0);
    cpSync(join(FIXTURE, "hostile"), join(base, "hostile"), { recursive: true });
    cpSync(join(FIXTURE, "builder"), join(base, "builder"), { recursive: true });
  }
  const withPort = (args: string[]): string[] => args.map((arg) => (arg === "LOOPBACK_PORT" ? String(port) : arg));
  for (const declared of [...suite.mcp_servers, suite.index_builder]) {
    declared.args = withPort(declared.args);
    for (const mount of declared.mounts) mount.source = mount.source === "build/wfbench-demo" ? demoDir : join(base, mount.source);
  }
  if (builderMode === "marker") suite.index_builder.args.push("marker");
  for (const task of suite.tasks) task.repo = resolve(FIXTURE, task.repo);
  const path = join(base, name);
  writeFileSync(path, stringify(suite));
  return path;
}

function parseReport(text: string): Record<string, string> {
  return Object.fromEntries(text.split("\n").map((line) => line.split("=", 2) as [string, string]));
}

function transcriptOf(row: Row): Event[] {
  expect(row.transcript_artifacts.length, `${row.task}/${row.arm}`).toBe(1);
  return readFileSync(join(out, row.transcript_artifacts[0]?.path ?? ""), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Event);
}

function initOf(events: Event[]): Event {
  const init = events.find((event) => event.type === "system" && event.subtype === "init");
  expect(init).toBeDefined();
  return init as Event;
}

function toolResults(events: Event[]): { text: string; isError: boolean }[] {
  return events
    .flatMap((event) => (event.type === "user" && Array.isArray(event.message?.content) ? (event.message.content as { type?: string; content?: unknown; is_error?: boolean }[]) : []))
    .filter((block) => block.type === "tool_result")
    .map((block) => ({
      text: typeof block.content === "string" ? block.content : Array.isArray(block.content) ? (block.content as { text?: string }[]).map((part) => part.text ?? "").join("\n") : JSON.stringify(block.content),
      isError: block.is_error === true,
    }));
}

function rowOf(task: string, arm: string): Row {
  const row = rows.find((r) => r.task === task && r.arm === arm);
  expect(row, `${task}/${arm}`).toBeDefined();
  return row as Row;
}

beforeAll(async () => {
  if (tools.skip) return;
  listener = createServer((socket) => {
    loopbackConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((done) => listener?.listen(0, "127.0.0.1", () => done()));
  const address = listener.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const suite = writeSuite(port, "suite.yaml", "clean");
  const args = ["--tasks", suite, "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "workflow_direct", "baseline", "baseline_nomcp", "--repeats", "1", "--workers", "2", "--out", out];
  const result = await runRunner(args);
  exitCode = result.code;
  stderr = result.stderr;
  rows = readResultRows<Row>(out);
  const leaky = await runRunner([...args.slice(0, -1), markerOut].map((arg) => (arg === suite ? writeSuite(port, "leaky-suite.yaml", "marker") : arg)));
  leakyExit = leaky.code;
  leakyStderr = leaky.stderr;
}, 240_000);

afterAll(() => {
  listener?.close();
  rmSync(base, { recursive: true, force: true });
});

describe.skipIf(tools.skip)("a suite's MCP servers in the cells", () => {
  it("ran every cell to a verdict", () => {
    expect(exitCode, stderr).toBe(0);
    expect(rows.map((row) => `${row.task}/${row.arm}`).sort()).toEqual([
      "mcp-call/baseline",
      "mcp-call/baseline_nomcp",
      "mcp-call/workflow_direct",
      "mcp-hostile/baseline",
      "mcp-hostile/baseline_nomcp",
      "mcp-hostile/workflow_direct",
    ]);
    // The scripted agents only call tools and answer: no patch, which is the expected verdict (not a harness failure);
    // the hostile trajectory never invokes the work skill.
    for (const row of rows) {
      const expected = row.task === "mcp-hostile" && row.arm === "workflow_direct" ? "skill-not-invoked" : "no-work-produced";
      expect(row["error_kind"], `${row.task}/${row.arm}: ${JSON.stringify(row["error_detail"])}`).toBe(expected);
    }
    for (const row of rows) expect(row["evidence_diagnostics"], `${row.task}/${row.arm}`).toEqual([]);
  });

  it("gives baseline every declared server's tools, and the demo server answers from the read-only workspace", () => {
    const events = transcriptOf(rowOf("mcp-call", "baseline"));
    const init = initOf(events);
    expect(init.tools).toEqual(expect.arrayContaining(["mcp__wfbench-demo__find_references", "mcp__wfbench-demo__impact", "mcp__hostile__probe"]));
    expect(init.mcp_servers?.map((server) => `${server.name}:${server.status}`).sort()).toEqual(["hostile:connected", "wfbench-demo:connected"]);
    const [answer, impact] = toolResults(events);
    expect(answer?.isError).toBe(false);
    expect(answer?.text).toContain("src/math.js:4: export function sum(values) {");
    expect(impact?.isError).toBe(false);
    expect(impact?.text).toMatch(/^src\/math\.js: \d+ mention\(s\)$/mu);
  });

  it("counts a workflow session's MCP tool use per server in the row, from the parent-captured stream", () => {
    const row = rowOf("mcp-call", "workflow_direct");
    expect(row["skill_invoked"]).toBe(true);
    expect(row["mcp_tool_uses"]).toEqual({ "wfbench-demo": 1, hostile: 0 });
    const [, answer] = toolResults(transcriptOf(row));
    expect(answer?.text).toContain("src/math.js:4: export function sum(values) {");
  });

  it("counts each session's MCP tool uses per server in the row, from the parent-captured stream", () => {
    expect(rowOf("mcp-call", "baseline")["mcp_tool_uses"]).toEqual({ "wfbench-demo": 2, hostile: 0 });
    expect(rowOf("mcp-hostile", "baseline")["mcp_tool_uses"]).toEqual({ "wfbench-demo": 0, hostile: 1 });
    expect(rowOf("mcp-call", "baseline")["tool_use_counts"]).toEqual({ "mcp__wfbench-demo__find_references": 1, "mcp__wfbench-demo__impact": 1 });
  });

  it("gives baseline_nomcp no MCP tool at all: its init lists none, and the scripted call is refused", () => {
    for (const task of ["mcp-call", "mcp-hostile"]) {
      const events = transcriptOf(rowOf(task, "baseline_nomcp"));
      const init = initOf(events);
      expect(init.tools?.filter((tool) => tool.startsWith("mcp__"))).toEqual([]);
      expect(init.tools).not.toContain("Skill");
      // --disable-slash-commands: no command (and so no skill) reaches the session.
      expect(init.slash_commands).toEqual([]);
      expect(init.mcp_servers ?? []).toEqual([]);
      const [answer] = toolResults(events);
      expect(answer?.isError).toBe(true);
      expect(answer?.text).not.toContain("src/math.js");
      expect(answer?.text).not.toContain("WORKSPACE_WRITE");
    }
    // A refused attempt is still a tool_use block the model emitted: the row counts attempts, like gitnexus_tool_uses.
    expect(rowOf("mcp-call", "baseline_nomcp")["mcp_tool_uses"]).toEqual({ "wfbench-demo": 2, hostile: 0 });
  });

  it("runs a hostile server without network, without a writable workspace or mount, and without the session's secrets", () => {
    const row = rowOf("mcp-hostile", "baseline");
    const [answer] = toolResults(transcriptOf(row));
    expect(answer?.isError).toBe(false);
    const report = parseReport(answer?.text ?? "");
    expect(report["WORKSPACE_WRITE"]).toBe("EROFS");
    expect(report["MOUNT_WRITE"]).toBe("EROFS");
    expect(report["LOOPBACK"]).not.toBe("open");
    // Exactly the harness's four variables (bwrap adds PWD): no token, no gateway address, nothing of the host.
    expect(report["ENV_KEYS"]).toBe("HOME,LANG,PATH,PWD,TMPDIR");
    expect(report["CWD"]).toBe("/workspace");
    // Host evidence: the listener saw nothing, the cell's patch carries no file the server tried to write.
    expect(loopbackConnections).toBe(0);
    const patch = readFileSync(join(out, String(row["patch_artifact"])), "utf8");
    expect(patch).not.toContain("mcp-server-wrote");
    expect(readFileSync(join(base, "hostile/server.mjs"), "utf8")).toBe(readFileSync(join(FIXTURE, "hostile/server.mjs"), "utf8"));
    // The index the server reads is bound read-only over the workspace too.
    expect(report["INDEX_WRITE"]).toBe("EROFS");
  });

  it("builds the index once per sanitized commit without network or a writable tree, and shows it to MCP arms only", () => {
    const [answer] = toolResults(transcriptOf(rowOf("mcp-hostile", "baseline")));
    const report = parseReport(answer?.text ?? "");
    // The builder's own report, read back through the server: it could neither write the tree nor reach the host.
    expect(report["BUILDER_INDEXED"]).toBe("src/math.js");
    expect(report["BUILDER_WORKSPACE_WRITE"]).toBe("EROFS");
    expect(report["BUILDER_LOOPBACK"]).not.toBe("open");
    expect(loopbackConnections).toBe(0);
    // Both tasks share one sanitized commit: one index, the same digests in every MCP row, none for baseline_nomcp.
    const digests = new Set(rows.filter((row) => row.arm === "baseline").map((row) => `${String(row["sanitized_graph_snapshot_digest"])}/${String(row["sanitized_graph_manifest_digest"])}`));
    expect(digests.size).toBe(1);
    expect([...digests][0]).toMatch(/^[0-9a-f]{64}\/[0-9a-f]{64}$/u);
    for (const row of rows.filter((r) => r.arm === "baseline_nomcp")) {
      expect(row["sanitized_graph_snapshot_digest"]).toBeNull();
      expect(row["sanitized_graph_manifest_digest"]).toBeNull();
    }
    for (const row of rows) expect(readFileSync(join(out, String(row["patch_artifact"])), "utf8")).not.toContain("wfbench-index");
  });

  it("refuses an index carrying a harness marker before any arm runs", () => {
    expect(leakyExit, leakyStderr).toBe(2);
    expect(leakyStderr).toContain("refused before any arm ran");
    expect(leakyStderr).toContain("refs/leak.txt: the content carries the harness marker");
    const written = existsSync(markerOut) ? readdirSync(markerOut) : [];
    expect(written.filter((name) => name === "results.jsonl" || name === "transcripts")).toEqual([]);
  });
});
