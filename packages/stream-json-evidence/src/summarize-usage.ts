import { compareCodePoints } from "@wfbench/digest";
import type { ParsedEvidenceStream } from "./parse-evidence-stream.js";
import { ModelUsageEntrySchema, ResultUsageSchema, isJsonObject, type StreamEvent } from "./schema.js";

/** Main-loop token usage exactly as the result event reported it. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly cacheCreationInputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly outputTokens: number;
}

/** One `modelUsage` entry; `costUsd` is null unless its basis is known. */
export interface ModelUsageTotals {
  readonly model: string;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly cacheReadInputTokens: number | null;
  readonly cacheCreationInputTokens: number | null;
  readonly costUsd: number | null;
  readonly costBasis: string | null;
}

// The model id (and its `canonicalModel`, when given) names a Claude model; only those costs can be measured.
type ReadModel = ModelUsageTotals & { readonly anthropic: boolean };

/** Subagent traffic grouped by the `parent_tool_use_id` that spawned it (counts only: its usage is not summable). */
export interface SubagentTraffic {
  readonly parentToolUseId: string;
  readonly assistantEvents: number;
  readonly messages: number;
  readonly models: readonly string[];
}

/** Usage and cost as the CLI reported them, with unmeasured values as null. */
export interface UsageSummary {
  /** null when `result.usage` is missing or malformed (a session-error for the row). */
  readonly usage: TokenUsage | null;
  readonly numTurns: number | null;
  readonly durationMs: number | null;
  readonly durationApiMs: number | null;
  /** `duration_ms / 1000`, else the wall time handed in, else null. */
  readonly durationSeconds: number | null;
  /** `total_cost_usd` when it is a finite non-negative number and every model's cost basis is known; else null. */
  readonly costUsd: number | null;
  /** Why `costUsd` is null (null when measured). */
  readonly costUnmeasuredReason: string | null;
  /** Distinct `costBasis` values of `modelUsage`, sorted. */
  readonly costBases: readonly string[];
  readonly models: readonly ModelUsageTotals[];
  readonly subagents: readonly SubagentTraffic[];
  /** Distinct main-loop assistant messages (by `message.id`); their usage snapshots are never summed. */
  readonly mainLoopMessages: number;
  readonly apiRetries: number;
}

/** Options of {@link summarizeUsage}. */
export interface SummarizeUsageOptions {
  /** Wall-clock duration of the process, used only when `duration_ms` is unusable. */
  readonly wallTimeMs?: number;
}

const UNKNOWN_BASIS = "unknown";

function isAnthropicModel(id: string): boolean {
  return /claude/i.test(id);
}

function readCount(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}

function readCost(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** Counts `system/api_retry` events (a health metric: each is one failed, retried request). */
export function countApiRetries(events: readonly StreamEvent[]): number {
  return events.filter((event) => event.type === "system" && event["subtype"] === "api_retry").length;
}

function readModels(modelUsage: unknown): ReadModel[] | null {
  if (!isJsonObject(modelUsage)) return null;
  return Object.keys(modelUsage)
    .sort()
    .map((model) => {
      const parsed = ModelUsageEntrySchema.safeParse(modelUsage[model]);
      const entry = parsed.success ? parsed.data : {};
      const costBasis = typeof entry.costBasis === "string" && entry.costBasis !== "" ? entry.costBasis : null;
      const knownBasis = costBasis !== null && costBasis !== UNKNOWN_BASIS;
      const canonical = (parsed.success ? parsed.data["canonicalModel"] : undefined) ?? model;
      const anthropic = isAnthropicModel(model) && (typeof canonical !== "string" || isAnthropicModel(canonical));
      return {
        model,
        inputTokens: entry.inputTokens ?? null,
        outputTokens: entry.outputTokens ?? null,
        cacheReadInputTokens: entry.cacheReadInputTokens ?? null,
        cacheCreationInputTokens: entry.cacheCreationInputTokens ?? null,
        costUsd: knownBasis && anthropic ? readCost(entry.costUSD) : null,
        costBasis,
        anthropic,
      };
    });
}

function groupSubagents(events: readonly StreamEvent[]): { subagents: SubagentTraffic[]; mainLoopMessages: number } {
  const groups = new Map<string, { events: number; messages: Set<string>; models: Set<string> }>();
  const mainMessages = new Set<string>();
  for (const event of events) {
    if (event.type !== "assistant") continue;
    const message = event["message"];
    const id = isJsonObject(message) && typeof message["id"] === "string" ? message["id"] : `uuid:${String(event["uuid"])}`;
    const parent = event["parent_tool_use_id"];
    if (typeof parent !== "string") {
      mainMessages.add(id);
      continue;
    }
    const group = groups.get(parent) ?? { events: 0, messages: new Set<string>(), models: new Set<string>() };
    group.events += 1;
    group.messages.add(id);
    const model = isJsonObject(message) ? message["model"] : undefined;
    if (typeof model === "string") group.models.add(model);
    groups.set(parent, group);
  }
  const subagents = [...groups.entries()]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([parentToolUseId, group]) => ({
      parentToolUseId,
      assistantEvents: group.events,
      messages: group.messages.size,
      models: [...group.models].sort(compareCodePoints),
    }));
  return { subagents, mainLoopMessages: mainMessages.size };
}

function decideCost(totalCost: unknown, models: readonly ReadModel[] | null): { costUsd: number | null; reason: string | null } {
  const cost = readCost(totalCost);
  if (cost === null) return { costUsd: null, reason: "total_cost_usd is missing, not a number, non-finite or negative" };
  if (models === null) return { costUsd: null, reason: "modelUsage is missing, so the cost basis is unknown" };
  // The CLI writes `modelUsage: {}` when nothing was counted (e.g. every request failed): a zero cost is then measured.
  if (models.length === 0) return cost === 0 ? { costUsd: 0, reason: null } : { costUsd: null, reason: "a cost without any priced model has an unknown basis" };
  const unknown = models.filter((model) => model.costBasis === null || model.costBasis === UNKNOWN_BASIS);
  if (unknown.length > 0) {
    return { costUsd: null, reason: `cost basis unknown for ${unknown.map((model) => model.model).join(", ")}` };
  }
  // The CLI only knows Anthropic prices; a figure for any other model is its default guess, not a measurement.
  const foreign = models.filter((model) => !model.anthropic);
  if (foreign.length > 0) {
    return { costUsd: null, reason: `not an Anthropic model: ${foreign.map((model) => model.model).join(", ")}` };
  }
  return { costUsd: cost, reason: null };
}

/**
 * Reads usage, turns, duration and cost from the result event only; assistant `message.usage` snapshots are never
 * summed. A cost with an unknown basis (CLI default price for unrecognised models) is null, never a number.
 */
export function summarizeUsage(stream: ParsedEvidenceStream, options: SummarizeUsageOptions = {}): UsageSummary {
  const { result, events } = stream;
  const parsedUsage = ResultUsageSchema.safeParse(result["usage"]);
  const usage: TokenUsage | null = parsedUsage.success
    ? {
        inputTokens: parsedUsage.data.input_tokens,
        cacheCreationInputTokens: parsedUsage.data.cache_creation_input_tokens,
        cacheReadInputTokens: parsedUsage.data.cache_read_input_tokens,
        outputTokens: parsedUsage.data.output_tokens,
      }
    : null;
  const durationMs = readCost(result["duration_ms"]);
  const wall = options.wallTimeMs !== undefined ? readCost(options.wallTimeMs) : null;
  const durationSeconds = durationMs !== null ? durationMs / 1000 : wall !== null ? wall / 1000 : null;
  const models = readModels(result["modelUsage"]);
  const { costUsd, reason } = decideCost(result["total_cost_usd"], models);
  const costBases = [...new Set((models ?? []).map((model) => model.costBasis ?? UNKNOWN_BASIS))].sort();
  return {
    usage,
    numTurns: readCount(result["num_turns"]),
    durationMs,
    durationApiMs: readCost(result["duration_api_ms"]),
    durationSeconds,
    costUsd,
    costUnmeasuredReason: reason,
    costBases,
    models: (models ?? []).map(({ anthropic: _anthropic, ...model }) => model),
    ...groupSubagents(events),
    apiRetries: countApiRetries(events),
  };
}
