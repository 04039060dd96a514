// The local-model template (tools/local-model) must keep routing: its env file is parsed as a shell would load it,
// and its documented command goes through the runner's own argv parser, env reading and upstream resolution.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readGatewayEnv, resolveUpstreamSettings } from "@wfbench/litellm-gateway";
import { parseArgs } from "./parse-args.js";

const DIR = fileURLToPath(new URL("../../../tools/local-model/", import.meta.url));
const CONTEXT = { root: "/repo", cwd: "/repo", now: new Date("2026-12-02T00:00:00.000Z") };

function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const match = /^([A-Z_][A-Z0-9_]*)=(\S+)$/u.exec(line);
    if (match === null) throw new Error(`${path}: not a plain NAME=value line (quoting or spaces would change under \`. file\`): ${line}`);
    env[match[1] as string] = match[2] as string;
  }
  return env;
}

/** The `npx wfbench run …` line of the README, with `"$NAME"` expanded from the env file. */
function documentedArgv(env: Readonly<Record<string, string>>): string[] {
  const line = readFileSync(`${DIR}README.md`, "utf8").split("\n").find((l) => l.startsWith("npx wfbench run "));
  if (line === undefined) throw new Error("tools/local-model/README.md lost its `npx wfbench run` command");
  return line
    .slice("npx wfbench run ".length)
    .split(/\s+/u)
    .filter((word) => word !== "" && word !== "<file>" && word !== "--tasks")
    .map((word) => word.replace(/^"\$([A-Z_]+)"$/u, (_, name: string) => env[name] ?? `<unset ${name}>`));
}

describe("tools/local-model/ollama.env", () => {
  const env = readEnvFile(`${DIR}ollama.env`);

  it("resolves through the runner's parser to the OpenAI route at the local endpoint with the placeholder key", () => {
    const argv = documentedArgv(env);
    expect(argv).toEqual(["--model", "openai/qwen2.5-coder:7b", "--base-url", "http://127.0.0.1:11434"]);
    const parsed = parseArgs(argv, CONTEXT);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const gateway = readGatewayEnv(env);
    if (!gateway.ok) throw new Error(gateway.error.message);
    const flags = parsed.value;
    const upstream = resolveUpstreamSettings({
      flags: { baseUrl: flags.baseUrl, anthropicApiKey: flags.anthropicApiKey, authToken: flags.authToken, openaiApiKey: flags.openaiApiKey },
      env: { anthropicApiKey: gateway.value.anthropicApiKey, anthropicKeyIsAuthToken: gateway.value.anthropicKeyIsAuthToken, openAiApiKey: gateway.value.openAiApiKey },
      models: [flags.model],
      scripted: null,
    });
    expect(upstream).toEqual({ ok: true, value: { kind: "openai", baseUrl: "http://127.0.0.1:11434", apiKey: env["WFBENCH_OPENAI_API_KEY"], authScheme: "bearer" } });
  });

  it("needs the openai/ prefix: the bare Ollama id is taken for an Anthropic id and asks for the Anthropic key", () => {
    const bare = (env["LOCAL_MODEL_ID"] ?? "").replace(/^openai\//u, "");
    const upstream = resolveUpstreamSettings({
      flags: { baseUrl: env["LOCAL_BASE_URL"] ?? null, anthropicApiKey: null, authToken: null, openaiApiKey: null },
      env: { anthropicApiKey: undefined, openAiApiKey: env["WFBENCH_OPENAI_API_KEY"] },
      models: [bare],
      scripted: null,
    });
    expect(upstream).toMatchObject({ ok: false, error: { code: "KEY_MISSING", message: expect.stringContaining("WFBENCH_ANTHROPIC_API_KEY") } });
  });
});
