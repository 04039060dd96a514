export { ScriptedModelError, isScriptedModelError, ListenError, RequestLogWriteError, ClaudeCliError } from "./errors.js";
export type { ScriptedModelErrorCode, ClaudeCliErrorCode } from "./errors.js";
export { loadScript, parseScript } from "./load-script.js";
export type { ScriptLoadResult, ScriptRefusal, ScriptIssue } from "./load-script.js";
export { ScriptSchema, MessagesRequestSchema } from "./schema.js";
export type {
  Script,
  ScriptInput,
  Trajectory,
  Turn,
  ContentBlock,
  TextBlock,
  ToolUseBlock,
  Usage,
  Fault,
  MatchRule,
  MessagesRequest,
} from "./schema.js";
export { selectTurn, extractRequestTexts, countConversationPosition, PROMPT_PREFIX_CHARS } from "./select-turn.js";
export type { TurnSelection, RequestTexts } from "./select-turn.js";
export { deriveStopReason, deriveToolUseId } from "./render-reply.js";
export type { RequestLogEntry, RequestOutcome } from "./request-log.js";
export { startScriptedModel, selectFault } from "./start-scripted-model.js";
export type { ScriptedModelServer, ScriptedModelOptions, ScriptedModelListen } from "./start-scripted-model.js";
export {
  resolveClaudeCli,
  PINNED_CLAUDE_CODE_VERSION,
  detectClaudeCliPlatform,
  selectPlatformPackage,
} from "./claude-cli.js";
export type { ResolvedClaudeCli, ResolveClaudeCliOptions, ClaudeCliPlatform } from "./claude-cli.js";
export { parseListen } from "./parse-listen.js";
export type { ListenParseResult } from "./parse-listen.js";
