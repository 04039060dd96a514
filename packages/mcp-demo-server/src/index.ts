export { createDemoMcpServer, DEMO_MCP_SERVER_NAME } from "./create-server.js";
export { findReferences, isSearchableSymbol, DEFAULT_SEARCH_LIMITS } from "./find-references.js";
export type { Reference, SearchLimits } from "./find-references.js";
