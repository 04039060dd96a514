import type { ScriptedModelListen } from "./start-scripted-model.js";

/** A parsed `--listen` value, or why it was refused. */
export type ListenParseResult = { ok: true; value: ScriptedModelListen } | { ok: false; error: string };

/** Parses `127.0.0.1:PORT` or `unix:/abs/path`; refuses every other host so nothing binds beyond loopback. */
export function parseListen(text: string): ListenParseResult {
  if (text.startsWith("unix:")) {
    const socketPath = text.slice("unix:".length);
    if (!socketPath.startsWith("/")) return { ok: false, error: `--listen unix: needs an absolute socket path, got ${JSON.stringify(text)}` };
    return { ok: true, value: { socketPath } };
  }
  const match = /^127\.0\.0\.1:(\d{1,5})$/.exec(text);
  const port = match?.[1] === undefined ? Number.NaN : Number(match[1]);
  if (!Number.isInteger(port) || port > 65_535) {
    return { ok: false, error: `--listen takes 127.0.0.1:PORT (0 picks a free port) or unix:/path, got ${JSON.stringify(text)}` };
  }
  return { ok: true, value: { host: "127.0.0.1", port } };
}
