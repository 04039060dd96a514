// The engine examples under examples/ (issue 16): parsed as the engines would read them, expanded for every shard,
// and checked against the runner's own parser, so the shard arguments, the output directories and the merge's list of
// shard directories line up for every k of N.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { parseArgs } from "./parse-args.js";

const EXAMPLES = fileURLToPath(new URL("../../../examples/", import.meta.url));
const CONTEXT = { root: "/repo", cwd: "/repo", now: new Date("2026-01-02T03:04:05Z") };

interface Step {
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}
interface GithubWorkflow {
  env: Record<string, string>;
  jobs: Record<string, { needs?: string | string[]; strategy?: { "fail-fast"?: boolean; matrix: { shard: number[] } }; steps: Step[] }>;
}

/** The words after `npx wfbench <command>` in a shell line (no quoting in these examples). */
function wfbenchArgs(line: string, command: string): string[] {
  const words = line.trim().split(/\s+/u);
  const at = words.findIndex((word, i) => word === "wfbench" && words[i + 1] === command);
  expect(at, `${line} runs npx wfbench ${command}`).toBeGreaterThan(0);
  return words.slice(at + 2);
}

/** The runner's verdict on one shard's flags: the shard it runs and its output directory. */
function shardOf(args: readonly string[]): { shard: unknown; out: string } {
  const parsed = parseArgs(args, CONTEXT);
  if (!parsed.ok) throw new Error(`${args.join(" ")}: ${parsed.error.message}`);
  return { shard: parsed.value.shard, out: parsed.value.out };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe("examples/github-actions/wfbench-sharded.yml", () => {
  const workflow = parse(readFileSync(`${EXAMPLES}github-actions/wfbench-sharded.yml`, "utf8")) as GithubWorkflow;
  const count = Number(workflow.env["SHARD_COUNT"]);
  const shardJob = workflow.jobs["shard"];
  const mergeJob = workflow.jobs["merge"];

  it("has a matrix over shard indices 1..N that agrees with SHARD_COUNT, and keeps going when one shard fails", () => {
    expect(count).toBeGreaterThan(1);
    expect(shardJob?.strategy?.matrix.shard).toEqual(range(count));
    expect(shardJob?.strategy?.["fail-fast"]).toBe(false);
  });

  it("runs shard k/N into its own directory for every k, and uploads exactly that directory", () => {
    const run = shardJob?.steps.find((step) => step.run?.includes("wfbench run"))?.run ?? "";
    const upload = shardJob?.steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"));
    expect(upload?.if).toBe("always()");
    const outs = new Set<string>();
    for (const k of range(count)) {
      const expand = (text: string): string => text.replaceAll("${{ matrix.shard }}", String(k)).replaceAll("${{ env.SHARD_COUNT }}", String(count));
      const { shard, out } = shardOf(wfbenchArgs(expand(run), "run"));
      expect(shard).toEqual({ index: k, count });
      expect(out).toBe(`/repo/${expand(String(upload?.with?.["path"]))}`);
      expect(expand(String(upload?.with?.["name"]))).toBe(`wfbench-shard-${k}`);
      outs.add(out);
    }
    expect(outs.size).toBe(count);
  });

  it("merges after every shard, from the downloaded artifacts, listing each shard directory once", () => {
    expect([mergeJob?.needs].flat()).toContain("shard");
    const download = mergeJob?.steps.find((step) => step.uses?.startsWith("actions/download-artifact@"));
    expect(download?.with).toMatchObject({ pattern: "wfbench-shard-*", path: "shards" });
    const [out, ...dirs] = wfbenchArgs(mergeJob?.steps.find((step) => step.run?.includes("wfbench merge"))?.run ?? "", "merge");
    expect(out).toBe("runs/merged");
    // download-artifact with a pattern puts each artifact in <path>/<artifact name>.
    expect(dirs).toEqual(range(count).map((k) => `shards/wfbench-shard-${k}`));
  });
});

interface Container {
  command: string[];
  args?: string[];
  env?: { name: string; value: string }[];
}
interface K8sJob {
  kind: string;
  metadata: { name: string };
  spec: { completionMode?: string; completions?: number; parallelism?: number; template: { spec: { containers: Container[] } } };
}

describe("examples/kubernetes/wfbench-indexed-job.yaml", () => {
  const [shards, merge] = parseAllDocuments(readFileSync(`${EXAMPLES}kubernetes/wfbench-indexed-job.yaml`, "utf8")).map((doc) => doc.toJSON() as K8sJob);
  const container = shards?.spec.template.spec.containers[0];
  const count = Number(container?.env?.find((env) => env.name === "SHARD_COUNT")?.value);

  it("is an Indexed Job with N completions, all running at once, N = SHARD_COUNT", () => {
    expect([shards?.kind, shards?.spec.completionMode]).toEqual(["Job", "Indexed"]);
    expect(count).toBeGreaterThan(1);
    expect([shards?.spec.completions, shards?.spec.parallelism]).toEqual([count, count]);
  });

  it("turns JOB_COMPLETION_INDEX 0..N−1 into --shard 1/N..N/N, each into its own directory", () => {
    const script = (container?.args ?? []).join(" ");
    expect(container?.command).toEqual(["/bin/sh", "-c"]);
    expect(script).toContain("shard=$((JOB_COMPLETION_INDEX + 1))");
    const outs = new Set<string>();
    for (let index = 0; index < count; index += 1) {
      const line = script.replaceAll("$shard", String(index + 1)).replaceAll("$SHARD_COUNT", String(count));
      const { shard, out } = shardOf(wfbenchArgs(line, "run"));
      expect(shard).toEqual({ index: index + 1, count });
      expect(out).toBe(`/results/shard-${index + 1}`);
      outs.add(out);
    }
    expect(outs.size).toBe(count);
  });

  it("has a merge Job over exactly the N shard directories on the same volume", () => {
    expect(merge?.kind).toBe("Job");
    const command = merge?.spec.template.spec.containers[0]?.command ?? [];
    const [out, ...dirs] = wfbenchArgs(command.join(" "), "merge");
    expect(out).toBe("/results/merged");
    expect(dirs).toEqual(range(count).map((k) => `/results/shard-${k}`));
  });
});
