// `wfbench propose`: one proposer session (reference §9.3). Reads argv and the environment, prints, maps the outcome to
// exit codes; the session itself is @wfbench/proposer-session's.
import { tmpdir, homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs as nodeParseArgs } from "node:util";
import { readGatewayEnv, resolveUpstreamSettings } from "@wfbench/litellm-gateway";
import { isProposerSessionError, runProposerSession } from "@wfbench/proposer-session";
import { redactText } from "@wfbench/redact";
import { loadScript } from "@wfbench/scripted-model";
import { EFFORTS, checkModelName } from "./parse-args.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const PROFILES = ["implementation", "review"] as const;

/** The usage text of `wfbench propose`. */
export const PROPOSE_USAGE = `Usage: wfbench propose --tasks SUITE --repo-root DIR --out DIR --model ID --effort E --timeout S --profile P [flags]

Runs one proposer session (a Claude Code session in the sandbox, on a sanitized clone of --repo-root's HEAD without
tasks/, oracles/ or the suite, evidence read-only at /evidence) and writes into --out (new, 0700): overlay/.claude/
skills/<skill>/…, proposal.md, proposer-session.json and transcripts/. Keys come from the environment, as for run.

  --tasks <file>             the suite whose skills are improved (its skills: block)
  --repo-root <dir>          the git repository holding the incumbent skills (cloned at HEAD)
  --out <dir>                a directory that does not exist yet
  --model <id>               the proposer model (pinned id)
  --effort <level>           ${EFFORTS.join(" | ")}
  --timeout <seconds>        the session's timeout
  --profile <p>              implementation (plan and work skills) | review (the review skill)
  --evidence-results <dir>   a sweep output directory whose rows, transcripts, patches and reviews become evidence
  --prior-proposal <file>    the previous generation's proposal.md
  --learnings <file>         the learning queue (JSONL)
  --script <file>            scripted-model trajectories (default for the demo suite: tasks/demo/scripted-proposer.yaml)
  --base-url <url>           an Anthropic-compatible endpoint (key from WFBENCH_ANTHROPIC_API_KEY)
  --claude-bin <path>        a Claude Code CLI to run instead of the pinned one
  --help                     this text

Exit codes: 0 overlay and proposal written, 1 the session failed or wrote no usable overlay, 2 bad usage or input.`;

const OPTIONS = {
  tasks: { type: "string" },
  "repo-root": { type: "string" },
  out: { type: "string" },
  model: { type: "string" },
  effort: { type: "string" },
  timeout: { type: "string" },
  profile: { type: "string" },
  "evidence-results": { type: "string" },
  "prior-proposal": { type: "string" },
  learnings: { type: "string" },
  script: { type: "string" },
  "base-url": { type: "string" },
  "claude-bin": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function usage(message: string): number {
  process.stderr.write(`wfbench propose: ${message}\n\n${PROPOSE_USAGE}\n`);
  return EXIT_USAGE;
}

/** `wfbench propose`: argv without the subcommand; returns the exit code. */
export async function propose(argv: readonly string[]): Promise<number> {
  let values: { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "boolean" ? boolean : string };
  try {
    ({ values } = nodeParseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    return usage(`${(error as Error).message.split("\n")[0] ?? ""}: see --help`);
  }
  if (values.help === true) {
    process.stdout.write(`${PROPOSE_USAGE}\n`);
    return EXIT_OK;
  }
  const cwd = process.cwd();
  for (const flag of ["tasks", "repo-root", "out", "model", "effort", "timeout", "profile"] as const) {
    if (values[flag] === undefined || values[flag] === "") return usage(`--${flag} is required`);
  }
  const path = (value: string | undefined): string | null => (value === undefined ? null : resolve(cwd, value));
  const model = values.model as string;
  const modelProblem = checkModelName(model);
  if (modelProblem !== null) return usage(modelProblem);
  const effort = values.effort as string;
  if (!(EFFORTS as readonly string[]).includes(effort)) return usage(`--effort ${JSON.stringify(effort)} is not one of ${EFFORTS.join(", ")}`);
  const timeoutS = Number(values.timeout);
  if (!Number.isInteger(timeoutS) || timeoutS < 1 || timeoutS > 86_400) return usage(`--timeout ${JSON.stringify(values.timeout)} must be a whole number of seconds between 1 and 86400`);
  const profile = values.profile as string;
  if (!(PROFILES as readonly string[]).includes(profile)) return usage(`--profile ${JSON.stringify(profile)} is not one of ${PROFILES.join(", ")}`);
  const tasks = path(values.tasks) as string;
  const gatewayEnv = readGatewayEnv(process.env);
  if (!gatewayEnv.ok) return usage(gatewayEnv.error.message);
  const demo = tasks === join(ROOT, "tasks/demo.yaml");
  const upstream = resolveUpstreamSettings({
    flags: { baseUrl: values["base-url"] ?? null, anthropicApiKey: null, authToken: null, openaiApiKey: null },
    env: { anthropicApiKey: gatewayEnv.value.anthropicApiKey, anthropicKeyIsAuthToken: gatewayEnv.value.anthropicKeyIsAuthToken, openAiApiKey: gatewayEnv.value.openAiApiKey },
    models: [model],
    scripted: values.script !== undefined ? "script-flag" : demo ? "demo-suite" : null,
  });
  if (!upstream.ok) return usage(upstream.error.message);
  const secrets = upstream.value.kind === "scripted" ? [] : [upstream.value.apiKey];
  let script = null;
  if (upstream.value.kind === "scripted") {
    const loaded = await loadScript(path(values.script) ?? join(ROOT, "tasks/demo/scripted-proposer.yaml"));
    if (!loaded.ok) return usage(`--script: ${loaded.error.message}`);
    script = loaded.value;
  }
  const controller = new AbortController();
  const onSignal = (name: string): void => {
    process.stderr.write(`wfbench propose: ${name} received, stopping the proposer session\n`);
    controller.abort();
  };
  process.once("SIGINT", () => onSignal("SIGINT"));
  process.once("SIGTERM", () => onSignal("SIGTERM"));
  const home = process.env["HOME"];
  try {
    const outcome = await runProposerSession({
      repoRoot: path(values["repo-root"]) as string,
      suitePath: tasks,
      oraclesPath: null,
      homeDir: home === undefined || home === "" ? homedir() : home,
      profile: profile as (typeof PROFILES)[number],
      model,
      effort,
      timeoutMs: timeoutS * 1000,
      outDir: path(values.out) as string,
      evidence: { resultsDir: path(values["evidence-results"]), learningsPath: path(values.learnings), priorProposalPath: path(values["prior-proposal"]) },
      upstream: upstream.value,
      script,
      claudeBin: path(values["claude-bin"]),
      tmpDir: tmpdir(),
      signal: controller.signal,
    });
    for (const line of outcome.trimmed) process.stderr.write(`wfbench propose: ${line}\n`);
    if (!outcome.ok) {
      process.stderr.write(`wfbench propose: ${redactText(outcome.reason, secrets)}\n  record: ${outcome.recordPath}\n`);
      return EXIT_FAILED;
    }
    process.stdout.write(`proposer wrote ${outcome.overlay.files.length} overlay file(s) (${outcome.overlay.skills.join(", ")})\n  overlay:  ${outcome.overlayDir}\n  proposal: ${outcome.proposalPath}\n  record:   ${outcome.recordPath}\n`);
    return EXIT_OK;
  } catch (error) {
    if (isProposerSessionError(error) && error.code === "PROPOSER_BAD_INPUT") return usage(redactText(error.message, secrets));
    const code = (error as Error & { code?: unknown }).code;
    process.stderr.write(`wfbench propose: ${typeof code === "string" ? `${code}: ` : ""}${redactText((error as Error).message, secrets)}\n`);
    return EXIT_FAILED;
  }
}
