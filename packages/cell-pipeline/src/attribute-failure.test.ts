import { describe, expect, it } from "vitest";
import { attributeFailure, type FailureContext } from "./attribute-failure.js";
import { CellPipelineError } from "./errors.js";
import type { FailureOrigin } from "./judge-cell.js";

const AFTER: FailureContext = { sessionsStarted: true, candidateRoots: ["/scratch/cell-1/wfbench-cell-x", "/scratch/cell-1/home", "/scratch/cell-1/tmp"] };
const BEFORE: FailureContext = { ...AFTER, sessionsStarted: false };

function errno(code: string, syscall: string, path?: string, dest?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${syscall} '${path ?? ""}'`), { code, syscall, ...(path === undefined ? {} : { path }), ...(dest === undefined ? {} : { dest }) });
}

describe("attributeFailure: the candidate's failure or the harness's", () => {
  it.each<[string, unknown, FailureContext, FailureOrigin]>([
    ["git refusing the workspace after the session (.git removed, a file it cannot diff)", new CellPipelineError("CELL_PIPELINE_WORKSPACE_REFUSED", "git diff exited 128"), AFTER, "workspace"],
    ["git refusing the workspace before any session: the template or setup", new CellPipelineError("CELL_PIPELINE_WORKSPACE_REFUSED", "git diff exited 128"), BEFORE, "harness"],
    ["git that could not start (spawn failure, timeout)", new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", "git ended spawn-failure"), AFTER, "harness"],
    ["candidate code changed the oracle stage while the oracle ran", Object.assign(new Error("tampered"), { code: "ORACLE_STAGE_TAMPERED" }), AFTER, "workspace"],
    ["candidate code replaced the oracle mountpoint", Object.assign(new Error("changed"), { code: "ORACLE_MOUNTPOINT_CHANGED" }), AFTER, "workspace"],
    ["the oracle could not write its stage (disk, fsync)", Object.assign(new Error("write"), { code: "ORACLE_STAGE_WRITE_FAILED" }), AFTER, "harness"],
    ["the oracle sandbox did not run", Object.assign(new Error("spawn"), { code: "ORACLE_RUN_INFRASTRUCTURE", state: "spawn-failure" }), AFTER, "harness"],
    ["a chain past PATH_MAX in the workspace", errno("ENAMETOOLONG", "scandir", "/scratch/cell-1/wfbench-cell-x/d/d/d"), AFTER, "workspace"],
    ["a planted link loop in the candidate's home", errno("ELOOP", "open", "/scratch/cell-1/home/.claude/x"), AFTER, "workspace"],
    ["the same error before any session", errno("ENAMETOOLONG", "scandir", "/scratch/cell-1/wfbench-cell-x/d"), BEFORE, "harness"],
    ["a path outside the candidate's roots (the harness's private dir)", errno("EACCES", "open", "/scratch/cell-1/private/stage"), AFTER, "harness"],
    ["a root's sibling with a shared prefix", errno("EACCES", "open", "/scratch/cell-1/tmpx/file"), AFTER, "harness"],
    ["a planted directory named with two leading dots inside the workspace", errno("ELOOP", "open", "/scratch/cell-1/wfbench-cell-x/..loop/x"), AFTER, "workspace"],
    ["a path climbing out of the workspace", errno("EACCES", "open", "/scratch/cell-1/wfbench-cell-x/../private/x"), AFTER, "harness"],
    ["out of descriptors, even inside the workspace", errno("EMFILE", "open", "/scratch/cell-1/wfbench-cell-x/a"), AFTER, "harness"],
    ["a full disk", errno("ENOSPC", "write", "/scratch/cell-1/wfbench-cell-x/a"), AFTER, "harness"],
    ["a rename from the workspace to the output dir", errno("EXDEV", "rename", "/scratch/cell-1/wfbench-cell-x/a", "/out/a"), AFTER, "harness"],
    ["an errno error without a path", errno("ENOENT", "spawn"), AFTER, "harness"],
    ["a sandbox error", Object.assign(new Error("bwrap gone"), { code: "SANDBOX_SPAWN_FAILED" }), AFTER, "harness"],
    ["not an Error", "boom", AFTER, "harness"],
  ])("%s → %s", (_name, error, context, expected) => {
    expect(attributeFailure(error, context)).toBe(expected);
  });
});
