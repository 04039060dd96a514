import { parseArgs } from "node:util";
import { parseListen } from "./parse-listen.js";
import type { ScriptedModelListen } from "./start-scripted-model.js";

/** Usage text of the `scripted-model` command. */
export const SERVE_USAGE = `usage: scripted-model serve --script <file.yaml|json> --listen <127.0.0.1:PORT|unix:/abs/path> [--log <requests.jsonl>]

Serves POST /v1/messages from a scripted trajectory file; prints the base URL on stdout once listening.
Stop with SIGINT or SIGTERM.`;

/** What the command line asked for. */
export type ServeCommand =
  | { kind: "help" }
  | { kind: "serve"; scriptPath: string; listen: ScriptedModelListen; logPath: string | null };

/** Parses argv (without node and the script); refusals are messages for a human, never throws. */
export function parseServeArgs(argv: readonly string[]): { ok: true; value: ServeCommand } | { ok: false; error: string } {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") return { ok: true, value: { kind: "help" } };
  if (command !== "serve") return { ok: false, error: `unknown command ${JSON.stringify(command ?? "")}` };
  if (rest.includes("--help") || rest.includes("-h")) return { ok: true, value: { kind: "help" } };
  let values: { script?: string[] | undefined; listen?: string[] | undefined; log?: string[] | undefined };
  try {
    // Collected as lists so a repeated option is refused rather than silently overriding the first one.
    ({ values } = parseArgs({
      args: [...rest],
      options: { script: { type: "string", multiple: true }, listen: { type: "string", multiple: true }, log: { type: "string", multiple: true } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  for (const name of ["script", "listen", "log"] as const) {
    const given = values[name] ?? [];
    if (given.length > 1) return { ok: false, error: `--${name} given more than once` };
    if (given[0] === "" && name !== "listen") return { ok: false, error: `--${name} needs a file path, got an empty value` };
  }
  const script = values.script?.[0];
  const listenText = values.listen?.[0];
  const log = values.log?.[0];
  if (script === undefined) return { ok: false, error: "--script is required" };
  if (listenText === undefined) return { ok: false, error: "--listen is required" };
  const listen = parseListen(listenText);
  if (!listen.ok) return listen;
  return { ok: true, value: { kind: "serve", scriptPath: script, listen: listen.value, logPath: log ?? null } };
}
