import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ClaudeCliError } from "./errors.js";

const WRAPPER_PACKAGE = "@anthropic-ai/claude-code";
const ownRequire = createRequire(import.meta.url);

function readVersion(require: NodeJS.Require, packageJson: string): string | null {
  try {
    const manifest = require(packageJson) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : null;
  } catch {
    return null;
  }
}

// The pin is this package's exact dependency, read from its package.json so it is never restated anywhere else; a
// drifted install must not redefine what "pinned" means, so the installed version is only ever compared against it.
function readDeclaredPin(): string {
  const manifest = ownRequire("../package.json") as { dependencies?: Record<string, string> };
  const declared = manifest.dependencies?.[WRAPPER_PACKAGE];
  if (declared === undefined || !/^\d+\.\d+\.\d+$/.test(declared)) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_VERSION_MISMATCH",
      `@wfbench/claude-cli must pin ${WRAPPER_PACKAGE} to an exact version in its package.json, found ${String(declared)}`,
    );
  }
  return declared;
}

const DECLARED_PIN = readDeclaredPin();

/** The Claude Code version this project runs: the exact version this package declares (resolveClaudeCli proves the install matches). */
export const PINNED_CLAUDE_CODE_VERSION: string = DECLARED_PIN;

/** Operating system, CPU and libc the native binary must match. */
export interface ClaudeCliPlatform {
  readonly platform: NodeJS.Platform;
  readonly arch: string;
  readonly libc: "glibc" | "musl";
}

/** Options of {@link resolveClaudeCli}; the defaults describe this process. */
export interface ResolveClaudeCliOptions {
  /** Host description; defaults to the running process (libc from process.report). */
  platform?: ClaudeCliPlatform;
  /** File or directory whose node_modules lookup finds the packages; defaults to this module. */
  resolveFrom?: string;
  /** Upper bound for `claude --version`; default 20 s. */
  versionTimeoutMs?: number;
}

/** A verified native Claude Code binary. */
export interface ResolvedClaudeCli {
  readonly path: string;
  readonly version: string;
  readonly platformPackage: string;
}

/** Describes the running process: platform, arch and glibc vs musl. */
export function detectClaudeCliPlatform(): ClaudeCliPlatform {
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  const header = report.header ?? {};
  return { platform: process.platform, arch: process.arch, libc: header.glibcVersionRuntime ? "glibc" : "musl" };
}

/** The optional platform package that carries the native binary, e.g. @anthropic-ai/claude-code-linux-x64-musl. */
export function selectPlatformPackage(host: ClaudeCliPlatform): string {
  if (host.platform !== "linux" || (host.arch !== "x64" && host.arch !== "arm64")) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_UNSUPPORTED_PLATFORM",
      `wfbench runs Claude Code on Linux x64 or arm64 only; this host is ${host.platform}/${host.arch}. ` +
        "Run the benchmark on a Linux machine or container.",
    );
  }
  return `${WRAPPER_PACKAGE}-linux-${host.arch}${host.libc === "musl" ? "-musl" : ""}`;
}

function runVersion(path: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // An empty environment: --version must not depend on, or read, the caller's credentials and settings.
    execFile(path, ["--version"], { timeout: timeoutMs, killSignal: "SIGKILL", env: {}, maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const detail = error.killed ? `timed out after ${timeoutMs} ms` : `${error.message.split("\n")[0] ?? ""} ${stderr.slice(0, 200)}`;
        reject(
          new ClaudeCliError(
            "CLAUDE_CLI_VERSION_FAILED",
            `\`${path} --version\` failed (${detail.trim()}); reinstall with \`rm -rf node_modules && npm ci\`.`,
            { cause: error },
          ),
        );
        return;
      }
      resolve(stdout);
    });
  });
}

/** Finds the pinned native Claude Code binary and proves it with `--version`; throws ClaudeCliError naming the fix. */
export async function resolveClaudeCli(options: ResolveClaudeCliOptions = {}): Promise<ResolvedClaudeCli> {
  const host = options.platform ?? detectClaudeCliPlatform();
  const platformPackage = selectPlatformPackage(host);
  const require = options.resolveFrom === undefined ? ownRequire : createRequire(join(options.resolveFrom, "noop.js"));

  const wrapperVersion = readVersion(require, `${WRAPPER_PACKAGE}/package.json`);
  if (wrapperVersion === null) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_PACKAGE_MISSING",
      `${WRAPPER_PACKAGE} is not installed; run \`npm ci\` at the workspace root.`,
    );
  }
  if (wrapperVersion !== DECLARED_PIN) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_VERSION_MISMATCH",
      `${WRAPPER_PACKAGE} ${wrapperVersion} is installed but @wfbench/claude-cli pins ${DECLARED_PIN}; run \`npm ci\`.`,
    );
  }

  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${platformPackage}/package.json`);
  } catch (error) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_PLATFORM_PACKAGE_MISSING",
      `run \`npm ci\` (without --omit=optional); the platform package ${platformPackage} is missing.`,
      { cause: error },
    );
  }
  const platformVersion = readVersion(require, `${platformPackage}/package.json`);
  if (platformVersion !== wrapperVersion) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_VERSION_MISMATCH",
      `${platformPackage} is ${String(platformVersion)} but ${WRAPPER_PACKAGE} is ${wrapperVersion}; run \`npm ci\`.`,
    );
  }

  const path = join(dirname(manifestPath), "claude");
  const info = await stat(path).catch(() => null);
  if (info === null || !info.isFile()) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_BINARY_MISSING",
      `${path} is missing or not a regular file; reinstall with \`rm -rf node_modules && npm ci\`.`,
    );
  }
  try {
    await access(path, constants.X_OK);
  } catch (error) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_NOT_EXECUTABLE",
      `${path} is not executable; run \`chmod +x ${path}\` or reinstall with \`npm ci\`.`,
      { cause: error },
    );
  }

  const output = await runVersion(path, options.versionTimeoutMs ?? 20_000);
  const version = /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(output)?.[1];
  if (version !== wrapperVersion) {
    throw new ClaudeCliError(
      "CLAUDE_CLI_VERSION_MISMATCH",
      `${path} reports version ${JSON.stringify(output.trim().slice(0, 80))}, expected ${wrapperVersion}; ` +
        "reinstall with `rm -rf node_modules && npm ci`.",
    );
  }
  return { path, version, platformPackage };
}
