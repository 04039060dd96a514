export { snapshotPlugin, removePluginSnapshot, PLUGIN_MANIFEST_SCHEMA_VERSION } from "./snapshot-plugin.js";
export type { PluginFile, PluginProvenance, PluginRefusal, PluginRule, PluginSnapshot, SnapshotPluginRequest, SnapshotPluginResult } from "./snapshot-plugin.js";
export { CE_PLUGIN_NAME, DEFAULT_PLUGIN_LIMITS, REQUIRED_CE_SKILLS, isExactPluginVersion } from "./rules.js";
export type { PluginLimits } from "./rules.js";
export { PluginSnapshotError, isPluginSnapshotError } from "./errors.js";
export type { PluginSnapshotErrorCode } from "./errors.js";
