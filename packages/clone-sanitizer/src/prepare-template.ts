import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { digestJson, sha256Hex } from "@wfbench/digest";
import type { GitRunner } from "./git-runner.js";
import { makeClone, type RefNotFound } from "./make-clone.js";
import { parseDeclaration } from "./parse-declaration.js";
import { removeTree } from "@wfbench/durable-fs";
import type { DeclarationRejection, Result } from "./result.js";
import { DEFAULT_GIT_TIMEOUTS, type GitContext, type GitTimeouts } from "./run-git.js";
import { sanitizeClone } from "./sanitize-clone.js";
import { PrepareTemplateInputSchema, SETTINGS_STUB_CONTENT, type PrepareTemplateInput } from "./schema.js";
import { verifySanitizedClone } from "./verify-sanitized-clone.js";

/** Bumped whenever sanitizing could produce different bytes; part of every template cache key. */
export const SANITIZER_VERSION = "wfbench-clone-sanitizer/3";

/** What a template's manifest digest covers (canonical JSON, sha256). */
export interface TemplateManifest {
  readonly schema_version: 1;
  readonly sanitizer_version: string;
  readonly source_sha: string;
  readonly sanitized_sha: string;
  readonly tree: string;
  readonly object_format: "sha1" | "sha256";
  readonly hidden_paths: readonly string[];
  readonly neutralize: readonly { readonly path: string; readonly sha256: string }[];
  /** The Claude Code settings stubs every template carries; `shipped` when the task repo had its own file there. */
  readonly settings_stubs: readonly { readonly path: string; readonly sha256: string; readonly shipped: boolean }[];
}

/** A verified, sanitized, parentless checkout that cells copy; never handed to a model directly. */
export interface Template {
  readonly path: string;
  readonly sanitizedSha: string;
  readonly sourceSha: string;
  readonly manifest: TemplateManifest;
  readonly manifestDigest: string;
}

/** Expected reasons a template cannot be built (declarations or a missing commit); never thrown. */
export type TemplateRejection = DeclarationRejection | RefNotFound;

/** Where and how prepareTemplate runs git. */
export interface PrepareTemplateOptions {
  readonly runner: GitRunner;
  /** Directory that receives the template (a fresh `wfbench-template-*` child). */
  readonly parentDir: string;
  readonly timeouts?: GitTimeouts;
}

/**
 * Clone `repo` at `sha`, remove `hiddenPaths`, neutralize config files, commit one parentless deterministic
 * commit, drop every ref/remote/reflog and unreachable object, then verify. Trusts nothing in the task repo;
 * refuses bad declarations as values and throws SanitizerError for git or verification failures (the
 * partial directory is removed either way).
 */
export async function prepareTemplate(
  input: PrepareTemplateInput,
  options: PrepareTemplateOptions,
): Promise<Result<Template, TemplateRejection>> {
  const parsed = parseDeclaration(PrepareTemplateInputSchema, input);
  if (!parsed.ok) return parsed;
  const request = parsed.value;
  const ctx: GitContext = { runner: options.runner, timeouts: options.timeouts ?? DEFAULT_GIT_TIMEOUTS };
  const dest = await mkdtemp(join(options.parentDir, "wfbench-template-"));
  let keep = false;
  try {
    const cloned = await makeClone(ctx, request.repo, request.sha, dest);
    if (!cloned.ok) return cloned;
    const sanitized = await sanitizeClone(ctx, dest, { hiddenPaths: request.hiddenPaths, neutralize: request.neutralize });
    if (!sanitized.ok) return sanitized;
    await verifySanitizedClone(ctx, dest, sanitized.value, request.hiddenPaths);
    const manifest: TemplateManifest = {
      schema_version: 1,
      sanitizer_version: SANITIZER_VERSION,
      source_sha: request.sha,
      sanitized_sha: sanitized.value.sanitizedSha,
      tree: sanitized.value.tree,
      object_format: sanitized.value.objectFormat,
      hidden_paths: [...sanitized.value.hiddenPaths],
      neutralize: request.neutralize
        .map((entry) => ({ path: entry.path, sha256: sha256Hex(entry.content) }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      settings_stubs: sanitized.value.settingsStubs.map((stub) => ({ path: stub.path, sha256: sha256Hex(SETTINGS_STUB_CONTENT), shipped: stub.shipped })),
    };
    keep = true;
    return {
      ok: true,
      value: {
        path: dest,
        sanitizedSha: sanitized.value.sanitizedSha,
        sourceSha: request.sha,
        manifest,
        manifestDigest: digestJson(manifest),
      },
    };
  } finally {
    if (!keep) await removeTree(dest);
  }
}
