/** Stable codes for plugin-snapshot failures; callers branch on these, never on messages. */
export type PluginSnapshotErrorCode =
  | "PLUGIN_SNAPSHOT_BAD_REQUEST"
  | "PLUGIN_SNAPSHOT_DEST_EXISTS"
  | "PLUGIN_SNAPSHOT_MUTATED"
  | "PLUGIN_SNAPSHOT_IO";

/** Thrown for a malformed request or an environment failure (EIO, EACCES, a tree changing under the copy); never for a plugin the rules refuse. */
export class PluginSnapshotError extends Error {
  readonly code: PluginSnapshotErrorCode;
  constructor(code: PluginSnapshotErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PluginSnapshotError";
    this.code = code;
  }
}

/** True for any PluginSnapshotError, also across module copies (checks the code prefix, not identity). */
export function isPluginSnapshotError(value: unknown): value is PluginSnapshotError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("PLUGIN_SNAPSHOT_");
}
