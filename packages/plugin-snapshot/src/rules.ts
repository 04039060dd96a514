/** Bounds of one snapshot (reference §6.9): 2,048 files, 2 MiB per file, 16 MiB in total, 1,024-byte paths. */
export interface PluginLimits {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly maxPathBytes: number;
}

/** The reference's limits. */
export const DEFAULT_PLUGIN_LIMITS: PluginLimits = {
  maxFiles: 2048,
  maxFileBytes: 2 * 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024,
  maxPathBytes: 1024,
};

/** The plugin name the CE comparator arms are defined against. */
export const CE_PLUGIN_NAME = "compound-engineering";

/** Skills every CE arm needs; each must ship `skills/<name>/SKILL.md`. */
export const REQUIRED_CE_SKILLS = ["ce-plan", "ce-work", "ce-code-review"] as const;

/** The trees copied whole (only `skills/` is required); everything else at the plugin root is never looked at. */
export const COPIED_TREES = ["skills", "scripts", "assets"] as const;

/** The manifest files copied from `.claude-plugin/` (only plugin.json is required). */
export const MANIFEST_PATH = ".claude-plugin/plugin.json";
export const MARKETPLACE_PATH = ".claude-plugin/marketplace.json";

// Development and VCS folders inside a copied tree: not part of what the plugin runs, so left behind rather than refused.
const SKIPPED_PARTS = new Set([".git", ".github", ".ssh", ".aws", "test", "tests", "doc", "docs", "node_modules", "__pycache__"]);
const SECRET_NAMES = new Set([".netrc", ".pypirc", "credentials", "credentials.json", "secrets", "secrets.json"]);
const SECRET_PREFIXES = [".env", ".npmrc"];
const SECRET_WORDS = ["secret", "credential", "private-key", "private_key", "token"];
const SECRET_SUFFIXES = [".pem", ".key", ".p12", ".pfx", ".kdbx"];

/** True when a directory entry of this name inside a copied tree is left out of the snapshot. */
export function isSkippedPart(name: string): boolean {
  return SKIPPED_PARTS.has(name);
}

/**
 * True when a name looks like it holds a credential. Such a file is refused rather than skipped: a plugin that ships
 * one is not a release the benchmark should mount into a model session, and silently dropping it would hide that.
 */
export function isSecretLike(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    SECRET_NAMES.has(lower) ||
    SECRET_PREFIXES.some((prefix) => lower.startsWith(prefix)) ||
    SECRET_WORDS.some((word) => lower.includes(word)) ||
    SECRET_SUFFIXES.some((suffix) => lower.endsWith(suffix))
  );
}

// MAJOR.MINOR.PATCH without leading zeros, then optional dot-separated pre-release and build identifiers (reference §2.1).
const NUMERIC = "(?:0|[1-9][0-9]*)";
const IDENTIFIERS = "[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*";
const SEMVER = new RegExp(`^${NUMERIC}\\.${NUMERIC}\\.${NUMERIC}(?:-${IDENTIFIERS})?(?:\\+${IDENTIFIERS})?$`, "u");

/** True for an exact semantic version such as `3.23.1` or `3.23.1-rc.1+build.5`; ranges, `v` prefixes and `latest` are refused. */
export function isExactPluginVersion(version: string): boolean {
  return SEMVER.test(version);
}
