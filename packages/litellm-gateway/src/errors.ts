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
