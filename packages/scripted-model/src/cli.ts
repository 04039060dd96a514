#!/usr/bin/env node
// Command line entry: the only module of this package that reads argv, prints, and sets exit codes.
import { isScriptedModelError } from "./errors.js";
import { loadScript } from "./load-script.js";
import { SERVE_USAGE, parseServeArgs } from "./parse-serve-args.js";
import { startScriptedModel, type ScriptedModelServer } from "./start-scripted-model.js";

function fail(message: string, exitCode: number): never {
  process.stderr.write(`scripted-model: ${message}\n`);
  process.exit(exitCode);
}

async function main(argv: readonly string[]): Promise<void> {
  const parsed = parseServeArgs(argv);
  if (!parsed.ok) fail(`${parsed.error}\n${SERVE_USAGE}`, 2);
  const command = parsed.value;
  if (command.kind === "help") {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return;
  }
  const script = await loadScript(command.scriptPath);
  if (!script.ok) fail(script.error.message.replace(/^scripted-model: /, ""), 2);

  let server: ScriptedModelServer;
  try {
    server = await startScriptedModel({
      script: script.value,
      listen: command.listen,
      ...(command.logPath === null ? {} : { requestLogPath: command.logPath }),
    });
  } catch (error) {
    if (isScriptedModelError(error)) fail(`${error.message} [${error.code}]`, 1);
    throw error;
  }
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`error while closing: ${String(error)}`, 1),
    );
  };
  // Handlers first: whoever reads the URL may signal us at once.
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  if (server.socketPath !== null) process.stderr.write(`scripted-model: listening on Unix socket ${server.socketPath}\n`);
  process.stdout.write(`${server.baseUrl}\n`);
}

await main(process.argv.slice(2));
