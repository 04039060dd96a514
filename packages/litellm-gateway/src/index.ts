export { isGatewayError } from "./errors.js";
export { startGateway } from "./start-gateway.js";
export type { ConnectionStats } from "./guard-connections.js";
export { buildCliGatewayEnv } from "./build-cli-gateway-env.js";
export type { CellUsageSummary, StreamAccounting } from "./summarize-cell-usage.js";
