export { isScriptedModelError } from "./errors.js";
export { loadScript, parseScript } from "./load-script.js";
export type { Script } from "./schema.js";
export { startScriptedModel } from "./start-scripted-model.js";
export type { ScriptedModelServer } from "./start-scripted-model.js";
