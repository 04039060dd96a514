import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, open, realpath, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
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
  /** A user-supplied CLI (`--claude-bin`, absolute path) to prove instead of the pinned install; null/absent: the pin. */
  claudeBin?: string | null;
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

function runVersion(path: string, timeoutMs: number, fix = "reinstall with `rm -rf node_modules && npm ci`"): Promise<string> {
  return new Promise((resolve, reject) => {
    // An empty environment: --version must not depend on, or read, the caller's credentials and settings.
    execFile(path, ["--version"], { timeout: timeoutMs, killSignal: "SIGKILL", env: {}, maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const detail = error.killed ? `timed out after ${timeoutMs} ms` : `${error.message.split("\n")[0] ?? ""} ${stderr.slice(0, 200)}`;
        reject(
          new ClaudeCliError(
            "CLAUDE_CLI_VERSION_FAILED",
            `\`${path} --version\` failed (${detail.trim()}); ${fix}.`,
            { cause: error },
          ),
        );
        return;
      }
      resolve(stdout);
    });
  });
}

/** Orders two `x.y.z[-pre]` versions by their numeric core; a prerelease sorts before its release. */
function compareVersions(a: string, b: string): number {
  const split = (v: string): [number[], boolean] => [v.split("-")[0]!.split(".").map(Number), v.includes("-")];
  const [coreA, preA] = split(a);
  const [coreB, preB] = split(b);
  for (let i = 0; i < 3; i += 1) if ((coreA[i] ?? 0) !== (coreB[i] ?? 0)) return (coreA[i] ?? 0) - (coreB[i] ?? 0);
  return preA === preB ? 0 : preA ? -1 : 1;
}

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

async function isElf(path: string): Promise<boolean> {
  const handle = await open(path, "r").catch(() => null);
  if (handle === null) return false;
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head.equals(ELF_MAGIC);
  } finally {
    await handle.close();
  }
}

// A user's CLI is trusted for nothing but what it proves: it runs, prints a Claude Code version no older than the pin
// (older ones lack flags the harness passes), and is a native binary (a script cannot run once staged execute-only).
async function resolveUserClaudeCli(path: string, timeoutMs: number): Promise<ResolvedClaudeCli> {
  if (!isAbsolute(path)) throw new ClaudeCliError("CLAUDE_CLI_BINARY_MISSING", `--claude-bin ${path} must be an absolute path (the runner resolves it against the working directory)`);
  const real = await realpath(path).catch(() => null);
  const info = real === null ? null : await stat(real).catch(() => null);
  if (real === null || info === null || !info.isFile()) {
    throw new ClaudeCliError("CLAUDE_CLI_BINARY_MISSING", `--claude-bin ${path} is missing or not a regular file: pass the path of a Claude Code executable, or omit --claude-bin to use the pinned ${DECLARED_PIN}`);
  }
  try {
    await access(real, constants.X_OK);
  } catch (error) {
    throw new ClaudeCliError("CLAUDE_CLI_NOT_EXECUTABLE", `--claude-bin ${path} is not executable: run \`chmod +x ${path}\` or pass another CLI`, { cause: error });
  }
  const output = await runVersion(real, timeoutMs, `pass a working Claude Code CLI to --claude-bin, or omit it to use the pinned ${DECLARED_PIN}`);
  // Claude Code prints "<version> (Claude Code)"; anything else is not a CLI this harness knows how to drive.
  const version = /^\s*(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?) \(Claude Code\)\s*$/u.exec(output)?.[1];
  if (version === undefined) {
    throw new ClaudeCliError("CLAUDE_CLI_VERSION_MISMATCH", `--claude-bin ${path}: \`--version\` printed ${JSON.stringify(output.trim().slice(0, 80))}, not "<x.y.z> (Claude Code)": pass a Claude Code CLI`);
  }
  if (compareVersions(version, DECLARED_PIN) < 0) {
    throw new ClaudeCliError("CLAUDE_CLI_VERSION_MISMATCH", `--claude-bin ${path} is Claude Code ${version}, older than ${DECLARED_PIN} (the oldest this harness drives headless): upgrade it or omit --claude-bin`);
  }
  if (!(await isElf(real))) {
    throw new ClaudeCliError("CLAUDE_CLI_NOT_NATIVE", `--claude-bin ${path} is not a native executable (ELF): the sandbox runs the CLI execute-only, which a script or the npm JS wrapper cannot survive; pass the native binary (e.g. node_modules/@anthropic-ai/claude-code-linux-x64/claude)`);
  }
  return { path: real, version, platformPackage: "user-supplied" };
}

/**
 * Finds the pinned native Claude Code binary, or proves a user-supplied one (`claudeBin`), with `--version`; throws
 * ClaudeCliError naming the fix.
 */
export async function resolveClaudeCli(options: ResolveClaudeCliOptions = {}): Promise<ResolvedClaudeCli> {
  if (options.claudeBin != null) return resolveUserClaudeCli(options.claudeBin, options.versionTimeoutMs ?? 20_000);
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
