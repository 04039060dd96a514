export { isClaudeCliError } from "./errors.js";
export { resolveClaudeCli } from "./resolve-claude-cli.js";
export type { ResolvedClaudeCli } from "./resolve-claude-cli.js";
export { HOST_BASH, assertExecOnlyBinary, stageExecOnlyBinary, stageExecOnlyShell } from "./stage-exec-only-binary.js";
export { buildClaudeArgv } from "./build-claude-argv.js";
export { CLAUDE_EXEC_ONLY_SHELL_ENV, CLAUDE_SESSION_ENV, SANDBOX_CLAUDE, SANDBOX_SHELL, SANDBOX_SHELL_PREFIX, buildClaudeEnv } from "./build-claude-env.js";
