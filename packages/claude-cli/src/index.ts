export { ClaudeCliError, isClaudeCliError } from "./errors.js";
export type { ClaudeCliErrorCode } from "./errors.js";
export { PINNED_CLAUDE_CODE_VERSION, resolveClaudeCli } from "./resolve-claude-cli.js";
export type { ClaudeCliPlatform, ResolveClaudeCliOptions, ResolvedClaudeCli } from "./resolve-claude-cli.js";
export { assertExecOnlyBinary, stageExecOnlyBinary } from "./stage-exec-only-binary.js";
export { buildClaudeArgv } from "./build-claude-argv.js";
export type { ClaudeArgvInput } from "./build-claude-argv.js";
export { CLAUDE_SESSION_ENV, SANDBOX_CLAUDE, SANDBOX_SHELL_PREFIX, buildClaudeEnv } from "./build-claude-env.js";
