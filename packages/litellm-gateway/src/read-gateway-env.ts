/** Default LiteLLM readiness budget: a cold LiteLLM import alone takes about 17 s. */
export const DEFAULT_READY_TIMEOUT_S = 180;

/** Client and upstream request timeout for high-effort first tokens. */
export const GATEWAY_REQUEST_TIMEOUT_S = 1800;

/** Env names, primary first; the original GITNEXUS_BENCH_* names stay accepted as aliases. */
export const GATEWAY_ENV_NAMES = {
  anthropicApiKey: ["WFBENCH_ANTHROPIC_API_KEY", "GITNEXUS_BENCH_ANTHROPIC_API_KEY", "WFBENCH_AUTH_TOKEN", "GITNEXUS_BENCH_AUTH_TOKEN"],
  openAiApiKey: ["WFBENCH_OPENAI_API_KEY", "GITNEXUS_BENCH_OPENAI_API_KEY", "OPENAI_API_KEY"],
  readyTimeoutS: ["WFBENCH_GATEWAY_READY_TIMEOUT_S", "GITNEXUS_BENCH_GATEWAY_READY_TIMEOUT_S"],
  liteLlmExecutable: ["WFBENCH_LITELLM_BIN"],
} as const;

/** Gateway settings read from an environment snapshot; secrets stay in this object and are never echoed. */
export interface GatewayEnv {
  readonly anthropicApiKey: string | undefined;
  /** True when that key came from an auth-token name (WFBENCH_AUTH_TOKEN, …): it is presented as Bearer upstream. */
  readonly anthropicKeyIsAuthToken: boolean;
  readonly openAiApiKey: string | undefined;
  readonly readyTimeoutMs: number;
  /** Name of the variable that set the budget (for messages), or the primary name when defaulted. */
  readonly readyTimeoutVariable: string;
  readonly liteLlmExecutable: string | undefined;
}

/** Why the env could not be read; `variable` is the offending name. */
export interface GatewayEnvError {
  readonly code: "READY_TIMEOUT_INVALID";
  readonly message: string;
  readonly variable: string;
}

type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

function pick(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") return { name, value: value.trim() };
  }
  return undefined;
}

/**
 * Reads keys and the readiness budget from an env snapshot the app passes in (packages never read process.env).
 * Blank values count as unset; the budget must be a finite number of seconds > 0, else an error naming the variable.
 */
export function readGatewayEnv(env: Readonly<Record<string, string | undefined>>): Result<GatewayEnv, GatewayEnvError> {
  const timeout = pick(env, GATEWAY_ENV_NAMES.readyTimeoutS);
  const anthropic = pick(env, GATEWAY_ENV_NAMES.anthropicApiKey);
  let readyTimeoutMs = DEFAULT_READY_TIMEOUT_S * 1000;
  if (timeout !== undefined) {
    const seconds = Number(timeout.value);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      return {
        ok: false,
        error: {
          code: "READY_TIMEOUT_INVALID",
          message: `${timeout.name} must be a finite number of seconds > 0, got ${JSON.stringify(timeout.value.slice(0, 40))}`,
          variable: timeout.name,
        },
      };
    }
    readyTimeoutMs = Math.round(seconds * 1000);
  }
  return {
    ok: true,
    value: {
      anthropicApiKey: anthropic?.value,
      anthropicKeyIsAuthToken: anthropic !== undefined && anthropic.name.endsWith("_AUTH_TOKEN"),
      openAiApiKey: pick(env, GATEWAY_ENV_NAMES.openAiApiKey)?.value,
      readyTimeoutMs,
      readyTimeoutVariable: timeout?.name ?? GATEWAY_ENV_NAMES.readyTimeoutS[0],
      liteLlmExecutable: pick(env, GATEWAY_ENV_NAMES.liteLlmExecutable)?.value,
    },
  };
}
