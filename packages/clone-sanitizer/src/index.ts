export { isSanitizerError } from "./errors.js";
export type { GitRunner } from "./git-runner.js";
export { createHostGitRunner } from "./host-git-runner.js";
export { createSandboxedGitRunner } from "./sandboxed-git-runner.js";
export type { Template } from "./prepare-template.js";
export { createTemplateCache } from "./template-cache.js";
export { materializeCell } from "./materialize-cell.js";
// The one tree removal (0555 trees, chains past PATH_MAX) lives in @wfbench/durable-fs; re-exported for cell owners.
export { removeTree } from "@wfbench/durable-fs";
export { buildHarnessGitDir, buildWorkspaceGitEnv, installHarnessGitDir } from "./harness-git-dir.js";
export type { HarnessGitDir, WorkspaceGitPaths } from "./harness-git-dir.js";
export { inspectRelativePath } from "./inspect-path.js";
export type { PathInspection } from "./inspect-path.js";
export { SETTINGS_STUB_CONTENT, SETTINGS_STUB_PATHS } from "./schema.js";
export { createTaskAssetCache } from "./task-asset-cache.js";
export type { AssetFailure, TaskAssetCache } from "./task-asset-cache.js";
export type { AssetEntry, CapturedDependency, TaskAssetSnapshot } from "./snapshot-task-assets.js";
export { materializeTaskAssets } from "./materialize-task-assets.js";
export type { AssetMounts } from "./materialize-task-assets.js";
