import { digestJson, sha256Hex } from "@wfbench/digest";
import { isSanitizerError } from "./errors.js";
import type { GitRunner } from "./git-runner.js";
import { createBuildMemo } from "./memoize-builds.js";
import { parseDeclaration } from "./parse-declaration.js";
import {
  prepareTemplate,
  SANITIZER_VERSION,
  type Template,
  type TemplateRejection,
} from "./prepare-template.js";
import { removeTree } from "@wfbench/durable-fs";
import type { Result } from "./result.js";
import type { GitTimeouts } from "./run-git.js";
import { PrepareTemplateInputSchema, type PrepareTemplateInput } from "./schema.js";

/** Why a cached template is unavailable; every cell of the task reports `message` as its infra error. */
export interface TemplateFailure {
  readonly kind: "template-failed";
  readonly key: string;
  /** A SANITIZER_* code for thrown failures, or the rejection kind (`invalid-declaration`, `ref-not-found`). */
  readonly code: string;
  readonly message: string;
  readonly cause: unknown;
}

/** Options of a template cache; one cache lives for one sweep. */
export interface TemplateCacheOptions {
  readonly runner: GitRunner;
  readonly parentDir: string;
  readonly timeouts?: GitTimeouts;
}

/** One sanitized template per key, built at most once per sweep. */
export interface TemplateCache {
  /** The template for `input`, sharing a concurrent build and replaying a memoised failure. */
  acquire(input: PrepareTemplateInput): Promise<Result<Template, TemplateFailure>>;
  /** Wait for in-flight builds, then remove every template this cache built. */
  dispose(): Promise<void>;
}

/** Cache key: repo identity, resolved sha, hidden/neutralize declarations and sanitizer version (sha256 hex). */
export function computeTemplateKey(input: {
  repo: string;
  sha: string;
  hiddenPaths: readonly string[];
  neutralize?: readonly { path: string; content: string }[] | undefined;
}): string {
  return digestJson(templateKeyFields(input));
}

function templateKeyFields(input: Parameters<typeof computeTemplateKey>[0]): Record<string, unknown> {
  return {
    repo_identity: input.repo,
    resolved_sha: input.sha,
    hidden_paths: [...input.hiddenPaths].sort(),
    neutralize: (input.neutralize ?? [])
      .map((entry) => ({ path: entry.path, sha256: sha256Hex(entry.content) }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    sanitizer_version: SANITIZER_VERSION,
  };
}

/**
 * What a template's bytes depend on, without where the repository lives: the resolved commit (which addresses the
 * whole tree), the hidden and neutralized paths and the sanitizer version (sha256 hex of canonical JSON); null for a
 * declaration acquire would refuse. Two sweeps with equal keys start their cells from the same sanitized tree even when
 * their task sources sit in different directories (a plain-file source is committed afresh under each sweep's scratch).
 */
export function templateContentKeyOf(input: PrepareTemplateInput): string | null {
  const parsed = parseDeclaration(PrepareTemplateInputSchema, input);
  if (!parsed.ok) return null;
  const { repo_identity: _where, ...content } = templateKeyFields(parsed.value);
  return digestJson(content);
}

type Built = Result<Template, TemplateFailure>;

/** Create a per-sweep template cache; trusts its runner, refuses to rebuild a key that failed once. */
export function createTemplateCache(options: TemplateCacheOptions): TemplateCache {
  const memo = createBuildMemo<Built>();
  return {
    async acquire(input) {
      const parsed = parseDeclaration(PrepareTemplateInputSchema, input);
      if (!parsed.ok) return { ok: false, error: describeRejection("(invalid)", parsed.error) };
      const key = computeTemplateKey(parsed.value);
      return memo.obtain(key, async (): Promise<Built> => {
        try {
          const built = await prepareTemplate(parsed.value, {
            runner: options.runner,
            parentDir: options.parentDir,
            ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
          });
          if (built.ok) return built;
          return { ok: false, error: describeRejection(key, built.error) };
        } catch (error) {
          const code = isSanitizerError(error) ? error.code : "SANITIZER_UNEXPECTED";
          const detail = error instanceof Error ? error.message : String(error);
          return {
            ok: false,
            error: {
              kind: "template-failed",
              key,
              code,
              message: `clone template for ${parsed.value.repo}@${parsed.value.sha} failed: ${detail}`,
              cause: error,
            },
          };
        }
      });
    },
    async dispose() {
      for (const outcome of await memo.settled()) {
        if (outcome.status === "fulfilled" && outcome.value.ok) await removeTree(outcome.value.value.path);
      }
    },
  };
}

function describeRejection(key: string, rejection: TemplateRejection): TemplateFailure {
  const message =
    rejection.kind === "invalid-declaration"
      ? `clone template declaration ${rejection.field}: ${rejection.message}`
      : `clone template: ${rejection.message}`;
  return { kind: "template-failed", key, code: rejection.kind, message, cause: rejection };
}
