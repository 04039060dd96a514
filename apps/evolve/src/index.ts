export { EvolveError, isEvolveError } from "./errors.js";
export type { EvolveErrorCode } from "./errors.js";
