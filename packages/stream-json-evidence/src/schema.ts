import { z } from "zod";

/** A JSON value as produced by JSON.parse on a validated line. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object (every stream-json event is one). */
export type JsonObject = { [key: string]: JsonValue };

/** One stream-json event: a JSON object whose `type` is a string; every other field is kept as the CLI wrote it. */
export type StreamEvent = JsonObject & { readonly type: string };

/** Default byte bound of a captured stdout and of a written transcript (8 MiB, as in the original harness). */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects accepted in one event (the event object itself is level 1). The CLI's own
 * framing nests about six levels; the rest is tool input the model wrote. Everything downstream (redaction, canonical
 * JSON) recurses per level, so a deeper line is refused before it can overflow the stack.
 */
export const MAX_EVENT_DEPTH = 256;

/** Options of the stream parser (validated at the edge). */
export const ParseOptionsSchema = z.strictObject({
  maxBytes: z.number().int().positive().max(1024 * 1024 * 1024).optional(),
  captureTruncated: z.boolean().optional(),
});

/** How the session process ended, as the sandbox runner reported it. */
export const ProcessOutcomeSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  state: z.string().min(1).max(64),
  detail: z.string().max(4000).nullable().optional(),
  /** Tails the runner kept of the process's stdout / stderr (the row keeps their last 2000 characters). */
  stdoutTail: z.string().max(64 * 1024).nullable().optional(),
  stderrTail: z.string().max(64 * 1024).nullable().optional(),
});
/** How the session process ended (`state` is "exited" for a normal exit; anything else is a failure). */
export type ProcessOutcome = z.infer<typeof ProcessOutcomeSchema>;

/** Secrets handed to redaction; empty strings are ignored because they would match everywhere. */
export const SecretsSchema = z.array(z.string()).max(64);

/** `result.usage` fields the row records; each must be a non-negative integer. */
export const ResultUsageSchema = z.looseObject({
  input_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});

/** One `modelUsage` entry (camelCase, as CLI 2.1.332 writes it); fields are optional because the CLI adds and drops them. */
export const ModelUsageEntrySchema = z.looseObject({
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  cacheReadInputTokens: z.number().int().nonnegative().optional(),
  cacheCreationInputTokens: z.number().int().nonnegative().optional(),
  costUSD: z.unknown().optional(),
  costBasis: z.unknown().optional(),
});

/** A `permission_denials[]` entry of the result event. */
export const PermissionDenialSchema = z.looseObject({
  tool_name: z.string(),
  tool_use_id: z.string(),
});

/** Tool ids as the original harness bounded them. */
export const TOOL_ID_PATTERN = /^[A-Za-z0-9._:-]{1,256}$/;
/** Tool names kept in counts; anything else is counted as `tool`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
/** Session ids accepted in artifact names. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** Transcript name prefixes accepted in artifact names. */
export const TRANSCRIPT_PREFIX_PATTERN = /^[A-Za-z0-9._-]{1,200}$/;

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
