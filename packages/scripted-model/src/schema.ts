import { listJsonGraphDefects, type JsonGraphDefect, type JsonGraphDefectKind } from "@wfbench/digest";
import { z } from "zod";

// Script files are written by hand: every object is strict so a misspelt key is refused, not ignored.

const nonNegativeInt = z.number().int().nonnegative();

/** A text block the scripted model answers with. */
export const TextBlockSchema = z.strictObject({
  type: z.literal("text"),
  text: z.string(),
});

const DEFECT_MESSAGES: Readonly<Record<JsonGraphDefectKind, (defect: JsonGraphDefect) => string>> = {
  "non-finite-number": (defect) => `${String(defect.kind === "non-finite-number" ? defect.value : Number.NaN)} is not a JSON number`,
  "not-json-value": () => "not a JSON value (use strings, finite numbers, booleans, null, lists, maps)",
  "proto-key": () => 'the key "__proto__" is not allowed',
  cycle: () => "this value contains itself, so it has no JSON form; alias only a collection that has ended",
  // Not reachable without bounds; the loader bounds depth and size before the schema runs.
  "too-deep": () => "nests too deeply",
  "too-large": () => "is too large",
};

// Tool input goes over the wire as JSON: anything JSON cannot carry (Infinity, NaN, binary) would arrive changed.
// digest's walk is iterative and checks each shared array/object once, so neither a 4,000-level input nor an alias
// graph standing for 10^9 nodes can overflow the stack or run for minutes here; every issue is named, in document order.
function checkJsonValue(input: unknown, context: z.RefinementCtx): void {
  for (const defect of listJsonGraphDefects(input, { maxDepth: Number.POSITIVE_INFINITY, strict: true })) {
    context.addIssue({ code: "custom", path: [...defect.path], message: DEFECT_MESSAGES[defect.kind](defect) });
  }
}

/** A tool call the scripted model makes; `id` is derived deterministically when absent. */
export const ToolUseBlockSchema = z.strictObject({
  type: z.literal("tool_use"),
  name: z.string().min(1),
  // Checked before zod copies the record, because the copy silently drops a "__proto__" key.
  input: z
    .unknown()
    .superRefine((input, context) => checkJsonValue(input, context))
    .pipe(z.record(z.string(), z.unknown())),
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "tool_use id may hold only letters, digits, '_' and '-'")
    .optional(),
});

/** One content block of a scripted turn. */
export const ContentBlockSchema = z.discriminatedUnion("type", [TextBlockSchema, ToolUseBlockSchema]);

/** Usage figures reported for a turn; the CLI sums the final per-message usage. */
export const UsageSchema = z.strictObject({
  input_tokens: nonNegativeInt,
  output_tokens: nonNegativeInt,
  cache_read_input_tokens: nonNegativeInt.default(0),
  cache_creation_input_tokens: nonNegativeInt.default(0),
});

const timesField = z.number().int().positive().default(1);

/** HTTP error answered instead of the turn (Anthropic error JSON body). */
export const HttpErrorFaultSchema = z.strictObject({
  kind: z.literal("http_error"),
  times: timesField,
  status: z.number().int().min(400).max(599),
  error_type: z.string().min(1).optional(),
  message: z.string().optional(),
  retry_after_s: nonNegativeInt.optional(),
});

/** `event: error` after message_start (and `after_blocks` complete blocks), then the stream ends. */
export const StreamErrorFaultSchema = z.strictObject({
  kind: z.literal("stream_error"),
  times: timesField,
  after_blocks: nonNegativeInt.default(0),
  error_type: z.string().min(1).default("overloaded_error"),
  message: z.string().default("Overloaded"),
});

/** The full reply, but without any content_block_stop event. */
export const OmitContentBlockStopFaultSchema = z.strictObject({
  kind: z.literal("omit_content_block_stop"),
  times: timesField,
});

/** Wait `ms` before answering (on top of the turn's own delay), then answer normally. */
export const DelayFaultSchema = z.strictObject({
  kind: z.literal("delay"),
  times: timesField,
  ms: nonNegativeInt,
});

/** A fault injected into the first attempts at one conversation position. */
export const FaultSchema = z.discriminatedUnion("kind", [
  HttpErrorFaultSchema,
  StreamErrorFaultSchema,
  OmitContentBlockStopFaultSchema,
  DelayFaultSchema,
]);

/** One scripted assistant reply, chosen by conversation position. */
export const TurnSchema = z.strictObject({
  content: z.array(ContentBlockSchema).min(1),
  usage: UsageSchema,
  usage_at: z.enum(["message_delta", "message_start"]).default("message_delta"),
  stop_reason: z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal"]).optional(),
  model: z.string().min(1).optional(),
  delay_ms: nonNegativeInt.default(0),
  faults: z.array(FaultSchema).default([]),
});

/** Where a match rule looks. */
export const MatchTargetSchema = z.enum(["system", "first_user", "any"]);

/** Selects a trajectory: every given condition must hold over the chosen text. */
export const MatchRuleSchema = z
  .strictObject({
    contains: z.string().min(1).optional(),
    regex: z.string().min(1).optional(),
    in: MatchTargetSchema.default("any"),
  })
  .refine((rule) => rule.contains !== undefined || rule.regex !== undefined, {
    message: "a match rule needs `contains` or `regex`",
  });

/** A named scripted conversation. */
export const TrajectorySchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "trajectory names are [A-Za-z0-9._-], starting alphanumeric"),
  match: MatchRuleSchema,
  turns: z.array(TurnSchema).min(1),
});

/** A whole script file. */
export const ScriptSchema = z.strictObject({
  version: z.literal(1),
  model: z.string().min(1).optional(),
  trajectories: z.array(TrajectorySchema).min(1),
});

/** A scripted text block, as parsed. */
export type TextBlock = z.output<typeof TextBlockSchema>;
/** A scripted tool call, as parsed (`id` still optional). */
export type ToolUseBlock = z.output<typeof ToolUseBlockSchema>;
/** A scripted content block, as parsed. */
export type ContentBlock = z.output<typeof ContentBlockSchema>;
/** A turn's usage figures with the cache defaults filled in. */
export type Usage = z.output<typeof UsageSchema>;
/** An injected fault, as parsed with its defaults. */
export type Fault = z.output<typeof FaultSchema>;
/** A scripted turn, as parsed with its defaults. */
export type Turn = z.output<typeof TurnSchema>;
/** A trajectory's match rule, as parsed (`in` defaults to any). */
export type MatchRule = z.output<typeof MatchRuleSchema>;
/** A named trajectory, as parsed. */
export type Trajectory = z.output<typeof TrajectorySchema>;
/** A whole script that passed the schema; only parseScript/loadScript also apply the cross-field checks and the size and depth bounds. */
export type Script = z.output<typeof ScriptSchema>;
/** What a script file may contain before defaults are applied. */
export type ScriptInput = z.input<typeof ScriptSchema>;

// The request side: only the fields the server reads are checked; the rest of the CLI's ~87 KB body passes through.

const RequestTextBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const RequestOtherBlockSchema = z.looseObject({ type: z.string() });

const RequestContentSchema = z.union([
  z.string(),
  z.array(z.union([RequestTextBlockSchema, RequestOtherBlockSchema])),
]);

/** The parts of a Messages API request body the scripted model relies on. */
export const MessagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(["user", "assistant"]),
        content: RequestContentSchema,
      }),
    )
    .min(1),
  system: RequestContentSchema.optional(),
  stream: z.boolean().optional(),
});

/** A request body that passed MessagesRequestSchema; unchecked fields pass through untouched. */
export type MessagesRequest = z.output<typeof MessagesRequestSchema>;
