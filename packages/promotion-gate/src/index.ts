export { PromotionError, isPromotionError } from "./errors.js";
export type { PromotionErrorCode } from "./errors.js";
