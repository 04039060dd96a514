export { ReviewError, isReviewError } from "./errors.js";
export type { ReviewErrorCode } from "./errors.js";
