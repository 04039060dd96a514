export {
  GatewayConfigError,
  GatewayError,
  GatewayListenError,
  GatewayUsageLogCorruptError,
  GatewayUsageLogError,
  LiteLlmExitedError,
  LiteLlmReadyTimeoutError,
  LiteLlmSpawnError,
  isGatewayError,
} from "./errors.js";
export type { GatewayErrorCode } from "./errors.js";
export { startGateway } from "./start-gateway.js";
export type { Gateway, StartGatewayOptions } from "./start-gateway.js";
export { createCellTokenRegistry } from "./cell-tokens.js";
export type { CellTokenRegistry } from "./cell-tokens.js";
export { createSseParser } from "./parse-sse.js";
export type { SseEvent, SseParser } from "./parse-sse.js";
export { MAX_SSE_VIOLATIONS, checkSseConformance, createSseConformanceChecker } from "./check-sse-conformance.js";
export type { SseConformanceChecker, SseConformanceReport } from "./check-sse-conformance.js";
export { createUsageAccumulator, emptyUsage, extractUsageFromMessage, mergeUsage } from "./extract-usage.js";
export type { UsageAccumulator } from "./extract-usage.js";
export { priceUsage, readPriceTableVersion } from "./price-usage.js";
export type { PricedUsage } from "./price-usage.js";
export { isOpenAiModel, resolveModelAccess, toLiteLlmModel } from "./route-model.js";
export type { ModelAccess, ModelAccessError, ResolveModelAccessInput } from "./route-model.js";
export { DEFAULT_READY_TIMEOUT_S, GATEWAY_ENV_NAMES, GATEWAY_REQUEST_TIMEOUT_S, readGatewayEnv } from "./read-gateway-env.js";
export type { GatewayEnv, GatewayEnvError } from "./read-gateway-env.js";
export { buildCliGatewayEnv } from "./build-cli-gateway-env.js";
export type { CliGatewayEnvInput } from "./build-cli-gateway-env.js";
export { openUsageLog, readUsageLog } from "./usage-log.js";
export type { UsageLog } from "./usage-log.js";
export { summarizeCellUsage } from "./summarize-cell-usage.js";
export type { CellUsageSummary } from "./summarize-cell-usage.js";
export { buildLiteLlmConfig, startLiteLlm } from "./start-litellm.js";
export type { LiteLlmHandle, StartLiteLlmOptions } from "./start-litellm.js";
export {
  AnthropicUsageWire,
  ListenConfig,
  MessagesRequestHead,
  RequestOutcome,
  UpstreamConfig,
  UpstreamKind,
  UsageRow,
  WireUsage,
} from "./schema.js";
