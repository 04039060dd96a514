import { createReadStream } from "node:fs";
import { buildArmSessions, renderShellPrefix } from "@wfbench/cell-pipeline";
import { digestJson, isDigestError, sha256Hex, sha256Stream } from "@wfbench/digest";
import { readPriceTableVersion } from "@wfbench/litellm-gateway";
import { ROW_SCHEMA_VERSION, SUPPORTED_ARMS } from "@wfbench/result-row";
import { describeSandboxPolicy } from "@wfbench/sandbox-bwrap";
import { SweepError } from "./errors.js";

/** Version of the runtime digest's own layout: bump it when a component is added or its encoding changes. */
export const RUNTIME_DIGEST_SCHEMA_VERSION = 1;

/** Everything in the harness that can change a result, each already reduced to a string (docs/runtime-digest.md). */
export interface RuntimeComponents {
  readonly schema_version: number;
  readonly claude_cli_version: string;
  /** sha256 of the CLI binary the cells run. */
  readonly claude_cli_sha256: string;
  /** sha256 of the bwrap options of a reference policy, the seccomp filter and the in-sandbox shell prefix. */
  readonly sandbox_policy_digest: string;
  /** sha256 of every supported arm's session prompts rendered with placeholder task and skill names. */
  readonly prompt_contract_digest: string;
  readonly row_schema_version: number;
  /** sha256 (canonical JSON) of the parsed scripted-model script, or null for a real upstream. */
  readonly scripted_model_script_digest: string | null;
  readonly price_table_version: string;
}

// Placeholders make the digest cover the prompt templates, not one suite's task text (that is task_prompt_digest).
const PLACEHOLDER_SKILLS = { plan: "<plan-skill>", work: "<work-skill>", review: "<review-skill>" };

/** sha256 of every supported arm's session specs with placeholder inputs: the prompt contracts this build sends. */
export function digestPromptContracts(): string {
  return digestJson(SUPPORTED_ARMS.map((arm) => ({ arm, sessions: buildArmSessions(arm, "<task>", PLACEHOLDER_SKILLS, "<plan-path>") })));
}

/** sha256 of the sandbox this build makes: reference bwrap options, seccomp filter bytes, the in-sandbox shell prefix. */
export function digestSandboxPolicy(): string {
  const policy = describeSandboxPolicy();
  return digestJson({ bwrap_argv: policy.bwrapArgv, seccomp_sha256: sha256Hex(policy.seccompFilter), shell_prefix_sha256: sha256Hex(renderShellPrefix()) });
}

// loadScript's value always has canonical JSON (finite numbers, at most 4,007 levels); anything else is refused here,
// with the flag to fix, rather than escaping as a DigestError.
function digestScript(script: unknown): string {
  try {
    return digestJson(script);
  } catch (error) {
    if (!isDigestError(error)) throw error;
    throw new SweepError("SWEEP_BAD_INPUT", `--script: the parsed script cannot be digested (${error.message}): pass a script that loadScript accepts`, { cause: error });
  }
}

/**
 * Gathers the runtime components of this sweep: reads the CLI binary at `claudePath` (streamed) and digests the
 * parsed script; trusts the version string the CLI resolver proved. Throws SWEEP_BAD_INPUT for a script that has no
 * canonical JSON.
 */
export async function collectRuntimeComponents(input: { readonly claudePath: string; readonly claudeVersion: string; readonly script: unknown; readonly priceTableVersion: string }): Promise<RuntimeComponents> {
  const binary = await sha256Stream(createReadStream(input.claudePath));
  return {
    schema_version: RUNTIME_DIGEST_SCHEMA_VERSION,
    claude_cli_version: input.claudeVersion,
    claude_cli_sha256: binary.sha256,
    sandbox_policy_digest: digestSandboxPolicy(),
    prompt_contract_digest: digestPromptContracts(),
    row_schema_version: ROW_SCHEMA_VERSION,
    scripted_model_script_digest: input.script === null ? null : digestScript(input.script),
    price_table_version: input.priceTableVersion,
  };
}

/** The runtime digest: sha256 of the components' canonical JSON. Pure. */
export function computeRuntimeDigest(components: RuntimeComponents): string {
  return digestJson(components);
}

/**
 * The runtime digest a sweep records in its rows when it runs the CLI at `claudePath` (version proved by the CLI
 * resolver) with this parsed scripted-model script (null: a real upstream) at this build's price table.
 */
export async function digestSweepRuntime(input: { readonly claudePath: string; readonly claudeVersion: string; readonly script: unknown }): Promise<string> {
  return computeRuntimeDigest(await collectRuntimeComponents({ ...input, priceTableVersion: readPriceTableVersion() }));
}
