import { GATEWAY_REQUEST_TIMEOUT_S } from "./read-gateway-env.js";

/** What the CLI needs to reach its model through the gateway. */
export interface CliGatewayEnvInput {
  /** The session model; every tier is pinned to it so no unpaid Anthropic-named tier model is ever requested. */
  readonly model: string;
  /** The cell's minted token (never the real provider key). */
  readonly token: string;
  /** Gateway Unix socket as the CLI sees it (inside the sandbox: the bind-mount target). */
  readonly socketPath?: string;
  /** Loopback fallback when the socket variable is not honoured: `http://127.0.0.1:<port>`. */
  readonly baseUrl?: string;
}

/**
 * Builds the gateway env for one Claude Code session: ANTHROPIC_API_KEY = minted token, the socket or loopback
 * base URL, every model tier pinned to the session model and the 1800 s API timeout. Refuses (throws TypeError) a
 * blank model/token or neither transport; never sets ANTHROPIC_AUTH_TOKEN.
 */
export function buildCliGatewayEnv(input: CliGatewayEnvInput): Record<string, string> {
  if (input.model.trim() === "") throw new TypeError("buildCliGatewayEnv: model is blank");
  if (input.token.trim() === "") throw new TypeError("buildCliGatewayEnv: token is blank");
  if (input.socketPath === undefined && input.baseUrl === undefined) {
    throw new TypeError("buildCliGatewayEnv: give socketPath or baseUrl");
  }
  const env: Record<string, string> = {
    ANTHROPIC_API_KEY: input.token,
    // With a Unix socket the URL only supplies Host and path; the connection goes to the socket.
    ANTHROPIC_BASE_URL: input.baseUrl ?? "http://localhost",
    ANTHROPIC_MODEL: input.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: input.model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: input.model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: input.model,
    ANTHROPIC_DEFAULT_FABLE_MODEL: input.model,
    ANTHROPIC_SMALL_FAST_MODEL: input.model,
    CLAUDE_CODE_SUBAGENT_MODEL: input.model,
    API_TIMEOUT_MS: String(GATEWAY_REQUEST_TIMEOUT_S * 1000),
  };
  if (input.socketPath !== undefined) env["ANTHROPIC_UNIX_SOCKET"] = input.socketPath;
  return env;
}
