import { digestJson } from "@wfbench/digest";
import { isSanitizerError } from "./errors.js";
import { createBuildMemo } from "./memoize-builds.js";
import { removeTree } from "@wfbench/durable-fs";
import type { DeclarationRejection, Result } from "./result.js";
import { snapshotTaskAssets, type SnapshotTaskAssetsRequest, type TaskAssetSnapshot } from "./snapshot-task-assets.js";

/** Why a task's asset snapshot is unavailable; memoised for the sweep like template failures. */
export interface AssetFailure {
  readonly kind: "assets-failed";
  readonly code: string;
  readonly message: string;
  readonly cause: unknown;
}

/** One frozen snapshot per (repo identity, sha, declarations, harness root), taken once per sweep. */
export interface TaskAssetCache {
  acquire(request: Omit<SnapshotTaskAssetsRequest, "cacheRoot">): Promise<Result<TaskAssetSnapshot, AssetFailure>>;
  dispose(): Promise<void>;
}

/** Create a task asset cache under `cacheRoot` (e.g. `<trees>/.task-assets`); never retries a failed key. */
export function createTaskAssetCache(cacheRoot: string): TaskAssetCache {
  const memo = createBuildMemo<Result<TaskAssetSnapshot, AssetFailure>>();
  return {
    acquire(request) {
      const key = digestJson({
        repo_identity: request.repoIdentity,
        resolved_sha: request.resolvedSha,
        declarations: request.declarations,
        harness_root: request.harnessRoot ?? "",
        source_root: request.sourceRoot,
      });
      return memo.obtain(key, async () => {
        try {
          const snapshot = await snapshotTaskAssets({ ...request, cacheRoot });
          return snapshot.ok ? snapshot : { ok: false, error: fromRejection(snapshot.error) };
        } catch (error) {
          return {
            ok: false,
            error: {
              kind: "assets-failed",
              code: isSanitizerError(error) ? error.code : "SANITIZER_UNEXPECTED",
              message: `task assets failed: ${error instanceof Error ? error.message : String(error)}`,
              cause: error,
            },
          };
        }
      });
    },
    async dispose() {
      for (const outcome of await memo.settled()) {
        if (outcome.status === "fulfilled" && outcome.value.ok) await removeTree(outcome.value.value.path);
      }
    },
  };
}

function fromRejection(rejection: DeclarationRejection): AssetFailure {
  return {
    kind: "assets-failed",
    code: rejection.kind,
    message: `task asset declaration ${rejection.field}: ${rejection.message}`,
    cause: rejection,
  };
}
