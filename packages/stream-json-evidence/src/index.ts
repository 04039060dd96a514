export { EvidenceError, isEvidenceError } from "./errors.js";
export type { EvidenceErrorCode } from "./errors.js";
