// `wfbench merge OUT SHARD_DIR...`: joins the output directories of `wfbench run --shard k/N` into one.
import { isAbsolute, resolve } from "node:path";
import { mergeShards, type MergeShardsSummary } from "@wfbench/sweep";

/** Resolves the command line's directories against `cwd` and merges; refusals throw SweepError(SWEEP_BAD_INPUT). */
export function runMerge(out: string, shardDirs: readonly string[], cwd: string, now: Date): Promise<MergeShardsSummary> {
  const absolute = (path: string): string => (isAbsolute(path) ? path : resolve(cwd, path));
  return mergeShards({ out: absolute(out), shardDirs: shardDirs.map(absolute), now });
}
