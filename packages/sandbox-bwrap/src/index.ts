export { SandboxError, isSandboxError } from "./errors.js";
export type { SandboxErrorCode } from "./errors.js";
