export { ScriptedModelError, isScriptedModelError } from "./errors.js";
export type { ScriptedModelErrorCode } from "./errors.js";
