import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SessionSpec } from "./arms.js";
import { runSession, type SessionContext, type SessionSandbox } from "./run-session.js";

const dir = mkdtempSync(join(tmpdir(), "cell-run-session-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec: SessionSpec = { phase: "work", prompt: "p", expectedSkill: "demo-work", disallowSkill: false, allowEdit: true };

function context(claudePath: string, sandbox: SessionSandbox): SessionContext {
  return {
    workspace: dir,
    homeHostPath: dir,
    tmpHostPath: dir,
    readOnlySkillRoots: [],
    claudePath,
    shellPrefixPath: join(dir, "shell-prefix"),
    gatewaySocketPath: join(dir, "gateway.sock"),
    token: "wfb-cell-token-run-session",
    model: "m-1",
    effort: "high",
    timeoutMs: 1000,
    outDir: dir,
    transcriptPrefix: "t",
    contaminationSkill: null,
    secrets: [],
    sandbox,
  };
}

describe("runSession", () => {
  it("refuses a CLI binary that is not staged execute-only as a cell error, before any sandbox starts", async () => {
    const readable = join(dir, "claude-readable");
    writeFileSync(readable, "#!/bin/true\n");
    chmodSync(readable, 0o755);
    let started = false;
    const sandbox: SessionSandbox = () => {
      started = true;
      return Promise.reject(new Error("must not start"));
    };
    const refusal = await runSession(spec, context(readable, sandbox)).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ name: "CellPipelineError", code: "CELL_PIPELINE_INPUT_INVALID", message: expect.stringMatching(/mode 755.*execute-only/u) });
    expect((refusal as Error).cause).toMatchObject({ name: "ClaudeCliError", code: "CLAUDE_CLI_NOT_EXEC_ONLY" });
    expect(started).toBe(false);
  });
});
