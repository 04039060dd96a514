/** Stable codes for litellm-gateway failures; callers branch on these, never on messages. */
export type GatewayErrorCode = `GATEWAY_${string}`;

/** Base error of litellm-gateway: thrown for environment failures and bugs, never for expected outcomes. */
export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  constructor(code: GatewayErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "GatewayError";
    this.code = code;
  }
}

/** True for any GatewayError, also across module copies (checks the code prefix, not identity). */
export function isGatewayError(value: unknown): value is GatewayError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("GATEWAY_");
}

/** Thrown when gateway options fail validation (bad listen target, bad upstream URL, bad model list). */
export class GatewayConfigError extends GatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("GATEWAY_CONFIG_INVALID", message, options);
    this.name = "GatewayConfigError";
  }
}

/** Thrown when the front proxy cannot bind its Unix socket or loopback port. */
export class GatewayListenError extends GatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("GATEWAY_LISTEN_FAILED", message, options);
    this.name = "GatewayListenError";
  }
}

/** Thrown when a usage row cannot be appended and fsynced; metering must never silently drop rows. */
export class GatewayUsageLogError extends GatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("GATEWAY_USAGE_LOG_WRITE_FAILED", message, options);
    this.name = "GatewayUsageLogError";
  }
}

/** Thrown when a usage log line does not parse back into a usage row. */
export class GatewayUsageLogCorruptError extends GatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("GATEWAY_USAGE_LOG_CORRUPT", message, options);
    this.name = "GatewayUsageLogCorruptError";
  }
}

/** Thrown when the LiteLLM supervisor or its executable cannot be started. */
export class LiteLlmSpawnError extends GatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("GATEWAY_LITELLM_SPAWN_FAILED", message, options);
    this.name = "LiteLlmSpawnError";
  }
}

/** Thrown when LiteLLM exits before answering its liveliness route; the message holds the redacted log tail. */
export class LiteLlmExitedError extends GatewayError {
  readonly exitCode: number | null;
  constructor(message: string, exitCode: number | null, options?: ErrorOptions) {
    super("GATEWAY_LITELLM_EXITED", message, options);
    this.name = "LiteLlmExitedError";
    this.exitCode = exitCode;
  }
}

/** Thrown when LiteLLM is not live within the readiness budget; the message names the override variable. */
export class LiteLlmReadyTimeoutError extends GatewayError {
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options?: ErrorOptions) {
    super("GATEWAY_LITELLM_READY_TIMEOUT", message, options);
    this.name = "LiteLlmReadyTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}
