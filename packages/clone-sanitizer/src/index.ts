export {
  SanitizerError,
  isSanitizerError,
  GitInvocationError,
  GitCommandError,
  TemplateVerificationError,
  NotSelfContainedError,
  UnsafeLayoutError,
  CopyFailedError,
  AssetCaptureError,
} from "./errors.js";
export type { GitInvocationErrorCode, SanitizerErrorCode } from "./errors.js";
export type { Result, DeclarationRejection } from "./result.js";
export type { GitInvocation, GitOutcome, GitRunner } from "./git-runner.js";
export { HARDENED_GIT_CONFIG, HARDENED_GIT_ENV, buildHardenedGitEnv, hardenGitArgv } from "./harden-git.js";
export { createHostGitRunner, DEFAULT_GIT_OUTPUT_LIMIT } from "./host-git-runner.js";
export type { HostGitRunner, HostGitRunnerOptions } from "./host-git-runner.js";
export { createSandboxedGitRunner } from "./sandboxed-git-runner.js";
export type { SandboxedGitRunnerOptions } from "./sandboxed-git-runner.js";
export { planGitBinds } from "./plan-git-binds.js";
export type { GitBind, GitBindPlan, GitRoots } from "./plan-git-binds.js";
export { runGit, DEFAULT_GIT_TIMEOUTS } from "./run-git.js";
export type { GitContext, GitTimeouts, RunGitOptions } from "./run-git.js";
export {
  RelativePathSchema,
  NeutralizeEntrySchema,
  PrepareTemplateInputSchema,
  DependencyDeclarationSchema,
  TaskAssetDeclarationsSchema,
  MAX_RELATIVE_PATH_BYTES,
  HARNESS_HIDDEN_PATHS,
  pathsOverlap,
} from "./schema.js";
export type {
  PrepareTemplateInput,
  PrepareTemplateRequest,
  TaskAssetDeclarations,
  TaskAssetDeclarationsInput,
} from "./schema.js";
export { parseDeclaration } from "./parse-declaration.js";
export { assertSelfContained } from "./assert-self-contained.js";
export { makeClone } from "./make-clone.js";
export type { RefNotFound } from "./make-clone.js";
export { sanitizeClone, SANITIZED_COMMIT, MAX_CLONE_REFS, PSEUDO_REFS } from "./sanitize-clone.js";
export type { SanitizeOutcome, SanitizeRequest, NeutralizeEntry } from "./sanitize-clone.js";
export { verifySanitizedClone } from "./verify-sanitized-clone.js";
export { prepareTemplate, SANITIZER_VERSION } from "./prepare-template.js";
export type { Template, TemplateManifest, TemplateRejection, PrepareTemplateOptions } from "./prepare-template.js";
export { createBuildMemo } from "./memoize-builds.js";
export type { BuildMemo } from "./memoize-builds.js";
export { createTemplateCache, computeTemplateKey } from "./template-cache.js";
export type { TemplateCache, TemplateCacheOptions, TemplateFailure } from "./template-cache.js";
export { copyTree, DEFAULT_TREE_COPY_LIMITS } from "./copy-tree.js";
export type { CopyLimits } from "./copy-tree.js";
export { materializeCell } from "./materialize-cell.js";
export type { Cell, MaterializeCellOptions } from "./materialize-cell.js";
// The one tree removal (0555 trees, chains past PATH_MAX) lives in @wfbench/durable-fs; re-exported for cell owners.
export { removeTree } from "@wfbench/durable-fs";
export { snapshotTaskAssets, DEFAULT_ASSET_LIMITS, TASK_ASSET_SCHEMA_VERSION } from "./snapshot-task-assets.js";
export type {
  AssetEntry,
  AssetLimits,
  CapturedDependency,
  SnapshotTaskAssetsRequest,
  TaskAssetSnapshot,
} from "./snapshot-task-assets.js";
export { materializeTaskAssets, SANDBOX_WORKSPACE } from "./materialize-task-assets.js";
export type { AssetMounts } from "./materialize-task-assets.js";
export { createTaskAssetCache } from "./task-asset-cache.js";
export type { AssetFailure, TaskAssetCache } from "./task-asset-cache.js";
