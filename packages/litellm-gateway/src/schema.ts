import { z } from "zod";

/** Token counts read from the wire; null means the upstream never said, which is not the same as 0. */
export const WireUsage = z.object({
  input_tokens: z.number().int().nonnegative().nullable(),
  output_tokens: z.number().int().nonnegative().nullable(),
  cache_read_input_tokens: z.number().int().nonnegative().nullable(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullable(),
});
/** Inferred type of WireUsage. */
export type WireUsage = z.infer<typeof WireUsage>;

/** How one proxied request ended, from the client's point of view. */
export const RequestOutcome = z.enum([
  "ok",
  "http_error",
  "stream_error",
  "upstream_unreachable",
  "aborted",
  "unauthorized",
  "bad_request",
  // A valid token whose cell already held its cap of connections (429, connection closed).
  "over_capacity",
]);
/** Inferred type of RequestOutcome. */
export type RequestOutcome = z.infer<typeof RequestOutcome>;

/** Which kind of upstream served a request (recorded in every usage row). */
export const UpstreamKind = z.enum(["anthropic", "anthropic-compatible", "litellm", "openai", "scripted"]);
/** Inferred type of UpstreamKind. */
export type UpstreamKind = z.infer<typeof UpstreamKind>;

/** One line of the append-only usage JSONL: one per request the gateway saw, failed and refused ones included. */
export const UsageRow = z.object({
  schema_version: z.literal(1),
  gateway_request_id: z.string().min(1),
  cell_id: z.string().nullable(),
  received_at: z.string(),
  completed_at: z.string(),
  duration_ms: z.number().nonnegative(),
  path: z.string(),
  upstream: UpstreamKind,
  stream: z.boolean().nullable(),
  model_requested: z.string().nullable(),
  model_served: z.string().nullable(),
  http_status: z.number().int().nullable(),
  upstream_request_id: z.string().nullable(),
  /**
   * The id of the message the upstream began (`message_start.message.id`, or a non-streaming body's `id`); null when
   * none began. Lets a cell match its wire rows against the message ids in the CLI's own stream. Absent in logs
   * written before it existed (read as null).
   */
  message_id: z.string().max(200).nullable().default(null),
  outcome: RequestOutcome,
  usage: WireUsage,
  cost_usd: z.number().nonnegative().nullable(),
  priced_model: z.string().nullable(),
  price_table: z.string(),
  attempt: z.number().int().positive(),
  retry_of: z.string().nullable(),
  request_sha256: z.string().nullable(),
  sse_conformant: z.boolean().nullable(),
  sse_violations: z.array(z.string()),
  response_bytes: z.number().int().nonnegative(),
  error: z.string().nullable(),
});
/** Inferred type of UsageRow (one parsed usage-log line). */
export type UsageRow = z.infer<typeof UsageRow>;

/** The usage object as Anthropic puts it on the wire; unknown extra fields are ignored. */
export const AnthropicUsageWire = z
  .object({
    input_tokens: z.number().int().nonnegative().nullable().optional(),
    output_tokens: z.number().int().nonnegative().nullable().optional(),
    cache_read_input_tokens: z.number().int().nonnegative().nullable().optional(),
    cache_creation_input_tokens: z.number().int().nonnegative().nullable().optional(),
  })
  .loose();
/** Inferred type of AnthropicUsageWire. */
export type AnthropicUsageWire = z.infer<typeof AnthropicUsageWire>;

/** The few request-body fields the gateway reads; everything else is forwarded untouched. */
export const MessagesRequestHead = z
  .object({
    model: z.string().min(1).optional(),
    stream: z.boolean().optional(),
  })
  .loose();
/** Inferred type of MessagesRequestHead. */
export type MessagesRequestHead = z.infer<typeof MessagesRequestHead>;

/** A non-streaming `message` response, reduced to the fields used for metering. */
export const MessageResponseHead = z
  .object({
    type: z.literal("message").optional(),
    id: z.string().optional(),
    model: z.string().optional(),
    usage: AnthropicUsageWire.optional(),
  })
  .loose();

/** Upstream the front proxy forwards to; the key lives only in the host process. */
export const UpstreamConfig = z.object({
  kind: UpstreamKind,
  /** Origin plus optional path prefix, e.g. `https://api.anthropic.com` or `http://127.0.0.1:4000`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** Connect through this Unix socket instead of TCP (the base URL then only supplies Host and path). */
  socketPath: z.string().min(1).optional(),
  /** Real provider key (Anthropic) or LiteLLM master key; never forwarded to the client side. */
  apiKey: z.string().min(1).optional(),
  /** How the key is presented upstream. */
  authScheme: z.enum(["x-api-key", "bearer"]).default("x-api-key"),
});
/** Input type of UpstreamConfig (authScheme may be omitted; it defaults to x-api-key). */
export type UpstreamConfig = z.input<typeof UpstreamConfig>;

/** Where the front proxy listens: a Unix socket path (preferred) or a loopback TCP port (fallback). */
export const ListenConfig = z.union([
  z.object({ socketPath: z.string().min(1) }),
  z.object({ host: z.literal("127.0.0.1"), port: z.number().int().min(0).max(65535) }),
]);
/** Inferred type of ListenConfig. */
export type ListenConfig = z.infer<typeof ListenConfig>;
