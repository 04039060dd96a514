import { describe, expect, it } from "vitest";
import { classifyProbeAnswer } from "./probe-upstream.js";
import { resolveUpstreamSettings, type ScriptedChoice, type UpstreamFlags } from "./resolve-upstream-settings.js";

const none: UpstreamFlags = { baseUrl: null, anthropicApiKey: null, authToken: null, openaiApiKey: null };
const KEY = "sk-ant-test-0123456789";

describe("resolveUpstreamSettings", () => {
  const cases: { name: string; flags: Partial<UpstreamFlags>; env?: string; scripted?: ScriptedChoice; expected: unknown }[] = [
    { name: "demo without a key runs scripted", flags: {}, scripted: "demo-suite", expected: { ok: true, value: { kind: "scripted" } } },
    { name: "demo with only an env key stays scripted (no surprise paid run)", flags: {}, env: KEY, scripted: "demo-suite", expected: { ok: true, value: { kind: "scripted" } } },
    { name: "an explicit --script runs scripted for any suite", flags: {}, env: KEY, scripted: "script-flag", expected: { ok: true, value: { kind: "scripted" } } },
    { name: "--script beside --base-url is refused", flags: { baseUrl: "https://gw.example.test" }, env: KEY, scripted: "script-flag", expected: { ok: false, error: { code: "SCRIPT_CONFLICT", flag: "--script" } } },
    { name: "the demo with a key flag goes to the public API", flags: { anthropicApiKey: "k" }, scripted: "demo-suite", expected: { ok: true, value: { kind: "anthropic", apiKey: "k" } } },
    { name: "other suite without a key is refused naming the env variable", flags: {}, expected: { ok: false, error: { code: "KEY_MISSING", message: expect.stringContaining("WFBENCH_ANTHROPIC_API_KEY") } } },
    { name: "--base-url without a key is refused even for the demo", flags: { baseUrl: "http://127.0.0.1:9" }, scripted: "demo-suite", expected: { ok: false, error: { code: "KEY_MISSING", flag: "--anthropic-api-key" } } },
    { name: "env key alone targets the public API", flags: {}, env: KEY, expected: { ok: true, value: { kind: "anthropic", baseUrl: "https://api.anthropic.com", apiKey: KEY, authScheme: "x-api-key" } } },
    { name: "flag beats env", flags: { anthropicApiKey: "flag-key" }, env: KEY, expected: { ok: true, value: { apiKey: "flag-key" } } },
    { name: "--auth-token is presented as Bearer", flags: { authToken: "tok", baseUrl: "https://gw.example.test/prefix/" }, expected: { ok: true, value: { kind: "anthropic-compatible", baseUrl: "https://gw.example.test/prefix", apiKey: "tok", authScheme: "bearer" } } },
    { name: "http to loopback is allowed", flags: { baseUrl: "http://localhost:4000" }, env: KEY, expected: { ok: true, value: { baseUrl: "http://localhost:4000" } } },
    { name: "http to ::1 is allowed", flags: { baseUrl: "http://[::1]:4000" }, env: KEY, expected: { ok: true, value: { baseUrl: "http://[::1]:4000" } } },
    { name: "http elsewhere is refused", flags: { baseUrl: "http://10.0.0.1:4000" }, env: KEY, expected: { ok: false, error: { code: "BASE_URL_INSECURE", flag: "--base-url" } } },
    { name: "userinfo is refused without echoing it", flags: { baseUrl: "https://u:secretpw@gw.example.test" }, env: KEY, expected: { ok: false, error: { code: "BASE_URL_USERINFO", message: expect.not.stringContaining("secretpw") } } },
    { name: "a non-URL is refused", flags: { baseUrl: "not a url" }, env: KEY, expected: { ok: false, error: { code: "BASE_URL_INVALID" } } },
    { name: "both key flags are refused", flags: { anthropicApiKey: "a", authToken: "b" }, expected: { ok: false, error: { code: "KEY_CONFLICT" } } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = resolveUpstreamSettings({ flags: { ...none, ...c.flags }, env: { anthropicApiKey: c.env }, scripted: c.scripted ?? null, models: ["claude-sonnet-4-5"] });
      expect(result).toMatchObject(c.expected as object);
      if (!result.ok) expect(result.error.message).not.toContain(KEY);
    });
  }
});

describe("resolveUpstreamSettings with a key from an auth-token variable", () => {
  const resolve = (flags: Partial<UpstreamFlags>) => resolveUpstreamSettings({ flags: { ...none, ...flags }, env: { anthropicApiKey: KEY, anthropicKeyIsAuthToken: true }, scripted: null, models: ["claude-sonnet-4-5"] });
  it("presents an env auth token as Bearer, like --auth-token", () => {
    expect(resolve({})).toMatchObject({ ok: true, value: { apiKey: KEY, authScheme: "bearer" } });
  });
  it("keeps x-api-key when --anthropic-api-key beats the env token", () => {
    expect(resolve({ anthropicApiKey: "flag-key" })).toMatchObject({ ok: true, value: { apiKey: "flag-key", authScheme: "x-api-key" } });
  });
});

describe("resolveUpstreamSettings: the OpenAI route (§8 model ids)", () => {
  const OAI = "sk-proj-test-0123456789abcdef";
  const resolve = (flags: Partial<UpstreamFlags>, models: string[], env: { anthropicApiKey?: string; openAiApiKey?: string } = {}, scripted: ScriptedChoice = null) =>
    resolveUpstreamSettings({ flags: { ...none, ...flags }, env: { anthropicApiKey: env.anthropicApiKey, openAiApiKey: env.openAiApiKey }, scripted, models });
  it("an OpenAI id with the env key goes to the public OpenAI API as Bearer", () => {
    expect(resolve({}, ["gpt-4.1-mini"], { openAiApiKey: OAI })).toEqual({ ok: true, value: { kind: "openai", baseUrl: "https://api.openai.com", apiKey: OAI, authScheme: "bearer" } });
  });
  it("--openai-api-key beats the env and --base-url names an OpenAI-compatible endpoint, with the same hygiene", () => {
    expect(resolve({ openaiApiKey: "flag", baseUrl: "http://127.0.0.1:8080/v1/" }, ["openai/o4-mini"], { openAiApiKey: OAI })).toEqual({ ok: true, value: { kind: "openai", baseUrl: "http://127.0.0.1:8080/v1", apiKey: "flag", authScheme: "bearer" } });
    expect(resolve({ openaiApiKey: "flag", baseUrl: "http://10.1.2.3:8080" }, ["gpt-4o"])).toMatchObject({ ok: false, error: { code: "BASE_URL_INSECURE" } });
    expect(resolve({ openaiApiKey: "flag", baseUrl: "https://u:pw@x.test" }, ["gpt-4o"])).toMatchObject({ ok: false, error: { code: "BASE_URL_USERINFO", message: expect.stringContaining("WFBENCH_OPENAI_API_KEY") } });
  });
  it("an OpenAI id without the OpenAI key is refused naming WFBENCH_OPENAI_API_KEY, even with an Anthropic key in the env", () => {
    const result = resolve({}, ["gpt-4.1-mini"], { anthropicApiKey: KEY });
    expect(result).toMatchObject({ ok: false, error: { code: "KEY_MISSING", flag: "--openai-api-key", message: expect.stringContaining("WFBENCH_OPENAI_API_KEY") } });
  });
  it("refuses OpenAI ids mixed with others, an Anthropic key flag on the OpenAI route and --openai-api-key for a Claude id", () => {
    expect(resolve({}, ["gpt-4o", "claude-sonnet-4-5"], { openAiApiKey: OAI })).toMatchObject({ ok: false, error: { code: "MIXED_MODELS" } });
    expect(resolve({ anthropicApiKey: "a" }, ["gpt-4o"], { openAiApiKey: OAI })).toMatchObject({ ok: false, error: { code: "KEY_CONFLICT", flag: "--openai-api-key" } });
    expect(resolve({ openaiApiKey: OAI }, ["claude-sonnet-4-5"])).toMatchObject({ ok: false, error: { code: "MIXED_MODELS", message: expect.not.stringContaining(OAI) } });
  });
  it("never routes the demo suite to a paid provider on an env key alone, and refuses an OpenAI id the scripted model cannot answer", () => {
    expect(resolve({}, ["gpt-4o"], { openAiApiKey: OAI }, "demo-suite")).toMatchObject({ ok: false, error: { code: "SCRIPTED_OPENAI_MODEL", flag: "--model", message: expect.stringContaining("pass --openai-api-key") } });
    expect(resolve({}, ["claude-sonnet-4-5", "openai/qwen2.5-coder:7b"], {}, "script-flag")).toMatchObject({ ok: false, error: { code: "SCRIPTED_OPENAI_MODEL", message: expect.stringContaining("openai/qwen2.5-coder:7b is an OpenAI model id") } });
    expect(resolve({}, ["claude-sonnet-4-5"], { openAiApiKey: OAI }, "demo-suite")).toEqual({ ok: true, value: { kind: "scripted" } });
    expect(resolve({ openaiApiKey: OAI }, ["gpt-4o"], {}, "demo-suite")).toMatchObject({ ok: true, value: { kind: "openai" } });
  });
});

describe("classifyProbeAnswer", () => {
  const err = (type: string, message = "x"): string => JSON.stringify({ type: "error", error: { type, message } });
  const cases: [number, string, string][] = [
    [200, "{}", "ok"],
    [401, err("authentication_error"), "key_refused"],
    [403, err("permission_error"), "key_refused"],
    [404, err("not_found_error", "model: nope"), "model_unknown"],
    [400, err("invalid_request_error", "model claude-x not found"), "model_unknown"],
    [502, err("api_error", "the gateway could not reach its upstream"), "unreachable"],
    [400, err("invalid_request_error", "no scripted turn"), "ok"],
    [500, err("api_error", "boom"), "failed"],
  ];
  for (const [status, body, outcome] of cases) {
    it(`${status} ${body.slice(0, 60)} → ${outcome}`, () => expect(classifyProbeAnswer(status, body).outcome).toBe(outcome));
  }
});
