import { isOpenAiModel } from "./route-model.js";
import type { UpstreamKind } from "./schema.js";

/** Where the operator pointed the sweep, as given on the command line; null means "not given". */
export interface UpstreamFlags {
  readonly baseUrl: string | null;
  readonly anthropicApiKey: string | null;
  readonly authToken: string | null;
  /** `--openai-api-key`: routes the sweep to an OpenAI-compatible provider through the translator. */
  readonly openaiApiKey: string | null;
}

/** The already-read key from the env snapshot (see readGatewayEnv); never an env name. */
export interface UpstreamEnvKeys {
  readonly anthropicApiKey: string | undefined;
  /** The env key came from an auth-token variable: present it as `Authorization: Bearer`, like --auth-token. */
  readonly anthropicKeyIsAuthToken?: boolean;
  /** The already-read OpenAI key (WFBENCH_OPENAI_API_KEY and aliases). */
  readonly openAiApiKey?: string | undefined;
}

/** A real upstream the gateway forwards to; the key stays in the host process. */
export interface RealUpstreamSettings {
  /** `openai`: an OpenAI-compatible provider the gateway reaches through its in-process translator. */
  readonly kind: Extract<UpstreamKind, "anthropic" | "anthropic-compatible" | "openai">;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly authScheme: "x-api-key" | "bearer";
}

/** What the sweep talks to: the embedded scripted model (demo only) or a real upstream. */
export type UpstreamSettings = { readonly kind: "scripted" } | RealUpstreamSettings;

/** Why the flags and env could not be turned into an upstream; `flag` names what to fix. */
export interface UpstreamSettingsError {
  readonly code: "BASE_URL_INVALID" | "BASE_URL_INSECURE" | "BASE_URL_USERINFO" | "KEY_MISSING" | "KEY_CONFLICT" | "SCRIPT_CONFLICT" | "MIXED_MODELS" | "SCRIPTED_OPENAI_MODEL";
  readonly flag: string;
  readonly message: string;
}

/** The public Anthropic API, used when a key is given without --base-url. */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** The public OpenAI API, used for OpenAI model ids without --base-url. */
export const OPENAI_BASE_URL = "https://api.openai.com";
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
const KEY_ENV = "WFBENCH_ANTHROPIC_API_KEY";
const OPENAI_KEY_ENV = "WFBENCH_OPENAI_API_KEY";

type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

function refuse(code: UpstreamSettingsError["code"], flag: string, message: string): { ok: false; error: UpstreamSettingsError } {
  return { ok: false, error: { code, flag, message } };
}

/** Whether the operator chose the scripted model: the embedded demo suite (the default), an explicit script, or neither. */
export type ScriptedChoice = "demo-suite" | "script-flag" | null;

/**
 * Decides the upstream from flags and the env snapshot (flag beats env). The scripted model serves the demo suite and
 * an explicit `--script` unless `--base-url` or a key flag is given; an env key alone routes every other suite to the
 * real API. OpenAI model ids (§8) or `--openai-api-key` select the OpenAI route (OpenAI key, flag beats env; --base-url
 * then names an OpenAI-compatible endpoint). Refuses a base URL that is not https (http only to loopback) or carries
 * userinfo, an OpenAI id on the scripted model, a non-demo suite without a key, both key flags at once, an Anthropic key flag on the OpenAI route, OpenAI
 * ids mixed with others, and `--script` beside a real upstream. Messages never contain the key.
 */
export function resolveUpstreamSettings(input: {
  readonly flags: UpstreamFlags;
  readonly env: UpstreamEnvKeys;
  readonly scripted: ScriptedChoice;
  /** The sweep's model ids (--model, --proposer-model): OpenAI ids (§8) route to the OpenAI provider. */
  readonly models: readonly string[];
}): Result<UpstreamSettings, UpstreamSettingsError> {
  const { flags } = input;
  const realRequested = flags.baseUrl !== null || flags.anthropicApiKey !== null || flags.authToken !== null || flags.openaiApiKey !== null;
  if (!realRequested && input.scripted !== null) {
    // The scripted model answers the Anthropic route only: with an OpenAI id every session would fail at its first turn.
    const openAiIds = input.models.filter(isOpenAiModel);
    if (openAiIds.length > 0) {
      const how = input.scripted === "demo-suite" ? "pass --openai-api-key (the env key alone keeps the demo offline) or --base-url" : "drop --script and pass --openai-api-key or set WFBENCH_OPENAI_API_KEY";
      return refuse("SCRIPTED_OPENAI_MODEL", "--model", `${openAiIds.join(", ")} ${openAiIds.length === 1 ? "is an OpenAI model id" : "are OpenAI model ids"}, but the scripted model answers only Anthropic ids: drop the OpenAI id to run offline, or ${how} to run against the provider`);
    }
    return { ok: true, value: { kind: "scripted" } };
  }
  if (realRequested && input.scripted === "script-flag") {
    return refuse("SCRIPT_CONFLICT", "--script", "--script selects the scripted model, but --base-url or a key flag selects a real upstream: pass one of them");
  }
  if (flags.anthropicApiKey !== null && flags.authToken !== null) {
    return refuse("KEY_CONFLICT", "--auth-token", "--anthropic-api-key and --auth-token both given: pass one (x-api-key or Authorization: Bearer)");
  }
  const models = input.models.filter((m) => m.trim() !== "");
  const openAiModels = models.filter(isOpenAiModel);
  const otherModels = models.filter((m) => !isOpenAiModel(m));
  if (openAiModels.length > 0 && otherModels.length > 0) {
    return refuse("MIXED_MODELS", "--model", `do not mix OpenAI model ids (${openAiModels.join(", ")}) with other ids (${otherModels.join(", ")}): one sweep uses one upstream route`);
  }
  const openAi = openAiModels.length > 0 || flags.openaiApiKey !== null;
  if (openAi && (flags.anthropicApiKey !== null || flags.authToken !== null)) {
    return refuse("KEY_CONFLICT", "--openai-api-key", "an OpenAI route (OpenAI model id or --openai-api-key) and an Anthropic key flag were both given: pass the key of the model's provider only");
  }
  if (openAi && otherModels.length > 0) {
    return refuse("MIXED_MODELS", "--model", `--openai-api-key routes to an OpenAI-compatible provider, but --model ${otherModels.join(", ")} is not an OpenAI id: pass e.g. --model gpt-4.1-mini`);
  }
  let baseUrl = openAi ? OPENAI_BASE_URL : ANTHROPIC_BASE_URL;
  if (flags.baseUrl !== null) {
    let url: URL;
    try {
      url = new URL(flags.baseUrl);
    } catch {
      return refuse("BASE_URL_INVALID", "--base-url", "--base-url is not a URL: pass e.g. https://api.anthropic.com or http://127.0.0.1:4000");
    }
    if (url.username !== "" || url.password !== "") {
      return refuse("BASE_URL_USERINFO", "--base-url", `--base-url must not carry credentials (user:password@): pass the key with ${openAi ? "--openai-api-key or WFBENCH_OPENAI_API_KEY" : "--anthropic-api-key or WFBENCH_ANTHROPIC_API_KEY"}`);
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) {
      return refuse("BASE_URL_INSECURE", "--base-url", `--base-url ${url.protocol}//${url.host}: use https, or http only to 127.0.0.1, ::1 or localhost`);
    }
    if (url.search !== "" || url.hash !== "") return refuse("BASE_URL_INVALID", "--base-url", "--base-url must not carry a query or fragment: pass the origin and optional path prefix");
    baseUrl = `${url.origin}${url.pathname.replace(/\/+$/u, "")}`;
  }
  if (openAi) {
    const flagKey = flags.openaiApiKey?.trim() ?? "";
    const apiKey = flagKey !== "" ? flagKey : input.env.openAiApiKey;
    if (apiKey === undefined || apiKey === "") {
      return refuse("KEY_MISSING", "--openai-api-key", `OpenAI model ${openAiModels.join(", ") || "ids"} need the provider's key: set ${OPENAI_KEY_ENV} (or pass --openai-api-key)`);
    }
    return { ok: true, value: { kind: "openai", baseUrl, apiKey, authScheme: "bearer" } };
  }
  const flagKey = flags.authToken ?? flags.anthropicApiKey;
  const apiKey = flagKey !== null && flagKey.trim() !== "" ? flagKey.trim() : input.env.anthropicApiKey;
  if (apiKey === undefined || apiKey === "") {
    const why = flags.baseUrl !== null ? "--base-url needs a key" : "only the embedded demo suite runs without a key (against the scripted model)";
    return refuse("KEY_MISSING", "--anthropic-api-key", `${why}: set ${KEY_ENV} (or pass --anthropic-api-key / --auth-token)`);
  }
  return {
    ok: true,
    value: {
      kind: baseUrl === ANTHROPIC_BASE_URL ? "anthropic" : "anthropic-compatible",
      baseUrl,
      apiKey,
      authScheme: flags.authToken !== null || (apiKey !== flagKey?.trim() && input.env.anthropicKeyIsAuthToken === true) ? "bearer" : "x-api-key",
    },
  };
}
