// `openai/<any id>` is the explicit form for OpenAI-compatible servers whose ids carry no OpenAI prefix (a local
// Ollama `qwen2.5-coder:7b`); the prefix is stripped before the provider sees the id (toOpenAiModelName).
const OPENAI_MODEL = /^(?:openai\/\S|gpt-|chatgpt-|o[0-9])/i;

/** True for ids routed to OpenAI through LiteLLM: `openai/<any id>`, `gpt-*`, `chatgpt-*`, `o<digit>…` (case-insensitive). */
export function isOpenAiModel(model: string): boolean {
  return OPENAI_MODEL.test(model);
}

/** The LiteLLM backend model string for an OpenAI id: `openai/<name>`, keeping an existing `openai/` prefix. */
export function toLiteLlmModel(model: string): string {
  return /^openai\//i.test(model) ? model : `openai/${model}`;
}

/** Where a sweep's model traffic goes once the gateway has resolved it. */
export type ModelAccess =
  | { readonly kind: "anthropic"; readonly apiKey: string }
  | { readonly kind: "anthropic-compatible"; readonly baseUrl: string; readonly apiKey: string }
  | { readonly kind: "litellm"; readonly models: readonly string[]; readonly openAiApiKey: string };

/** Why model access could not be resolved; `variable` names the env var the user should set, when one applies. */
export interface ModelAccessError {
  readonly code: "BASE_URL_WITHOUT_KEY" | "MIXED_MODELS" | "OPENAI_KEY_MISSING" | "ANTHROPIC_KEY_MISSING" | "NO_MODELS";
  readonly message: string;
  readonly variable: string | null;
}

/** Inputs to access resolution; keys are the already-read secrets (see readGatewayEnv), never env names. */
export interface ResolveModelAccessInput {
  readonly models: readonly string[];
  readonly anthropicApiKey?: string | undefined;
  readonly openAiApiKey?: string | undefined;
  readonly baseUrl?: string | undefined;
}

type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/**
 * Applies the routing rules: an explicit base URL needs a key and wins; OpenAI ids and other ids never mix; OpenAI ids
 * need the OpenAI key and go to LiteLLM; anything else goes to Anthropic with the Anthropic key. Blank keys count as
 * missing. Returns the decision as a value; never throws.
 */
export function resolveModelAccess(input: ResolveModelAccessInput): Result<ModelAccess, ModelAccessError> {
  const models = [...new Set(input.models.filter((m) => m.trim() !== ""))];
  if (models.length === 0) {
    return { ok: false, error: { code: "NO_MODELS", message: "no model id was given; pass --model", variable: null } };
  }
  if (present(input.baseUrl)) {
    if (!present(input.anthropicApiKey)) {
      return {
        ok: false,
        error: {
          code: "BASE_URL_WITHOUT_KEY",
          message:
            "--base-url requires --anthropic-api-key (or WFBENCH_ANTHROPIC_API_KEY / GITNEXUS_BENCH_ANTHROPIC_API_KEY) for the endpoint it names",
          variable: "WFBENCH_ANTHROPIC_API_KEY",
        },
      };
    }
    return { ok: true, value: { kind: "anthropic-compatible", baseUrl: input.baseUrl, apiKey: input.anthropicApiKey } };
  }
  const openAi = models.filter(isOpenAiModel);
  const other = models.filter((m) => !isOpenAiModel(m));
  if (openAi.length > 0 && other.length > 0) {
    return {
      ok: false,
      error: {
        code: "MIXED_MODELS",
        message: `do not mix OpenAI model ids (${openAi.join(", ")}) with other ids (${other.join(", ")}); one sweep uses one gateway route`,
        variable: null,
      },
    };
  }
  if (openAi.length > 0) {
    if (!present(input.openAiApiKey)) {
      return {
        ok: false,
        error: {
          code: "OPENAI_KEY_MISSING",
          message: `model ${openAi.join(", ")} is served by OpenAI through LiteLLM; set WFBENCH_OPENAI_API_KEY (or GITNEXUS_BENCH_OPENAI_API_KEY / OPENAI_API_KEY)`,
          variable: "WFBENCH_OPENAI_API_KEY",
        },
      };
    }
    return { ok: true, value: { kind: "litellm", models: openAi, openAiApiKey: input.openAiApiKey } };
  }
  if (!present(input.anthropicApiKey)) {
    return {
      ok: false,
      error: {
        code: "ANTHROPIC_KEY_MISSING",
        message: `model ${other.join(", ")} is served by Anthropic; set WFBENCH_ANTHROPIC_API_KEY (or GITNEXUS_BENCH_ANTHROPIC_API_KEY / GITNEXUS_BENCH_AUTH_TOKEN)`,
        variable: "WFBENCH_ANTHROPIC_API_KEY",
      },
    };
  }
  return { ok: true, value: { kind: "anthropic", apiKey: input.anthropicApiKey } };
}
