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
  let values: { script?: string | undefined; listen?: string | undefined; log?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: { script: { type: "string" }, listen: { type: "string" }, log: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  if (values.script === undefined) return { ok: false, error: "--script is required" };
  if (values.listen === undefined) return { ok: false, error: "--listen is required" };
  const listen = parseListen(values.listen);
  if (!listen.ok) return listen;
  return { ok: true, value: { kind: "serve", scriptPath: values.script, listen: listen.value, logPath: values.log ?? null } };
}
