export { SanitizerError, isSanitizerError } from "./errors.js";
export type { SanitizerErrorCode } from "./errors.js";
