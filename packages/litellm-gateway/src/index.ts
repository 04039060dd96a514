export { GatewayError, isGatewayError } from "./errors.js";
export type { GatewayErrorCode } from "./errors.js";
