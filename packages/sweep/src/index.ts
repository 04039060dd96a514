export { SweepError, isSweepError } from "./errors.js";
export type { SweepErrorCode } from "./errors.js";
export { runSweep } from "./run-sweep.js";
export type { RunSweepInput, SweepEvent, SweepOptions, SweepSummary } from "./run-sweep.js";
export { MAX_SHARDS, SWEEP_PLAN_FILE, assignShard, parseShardSpec } from "./shard-plan.js";
export type { ShardSpec } from "./shard-plan.js";
export { mergeShards } from "./merge-shards.js";
export type { MergeShardsInput, MergeShardsSummary } from "./merge-shards.js";
export { digestSweepRuntime } from "./runtime-digest.js";
