import { buildReviewPromptContract } from "@wfbench/review-scoring";
import { IMPLEMENTATION_ARMS, REVIEW_ARMS, isCeArm, resolveIncumbentArm, type Arm } from "@wfbench/result-row";
import type { SuiteSkills } from "@wfbench/task-suite";

// The arm vocabulary is the row contract's; this module adds what the pipeline does with each arm.
export { isCandidateArm, isCeArm, isSupportedArm, resolveIncumbentArm } from "@wfbench/result-row";

/** The in-sandbox mount point of the frozen CE plugin snapshot (reference §6.1 SANDBOX_CE_PLUGIN), handed to --plugin-dir. */
export const SANDBOX_CE_PLUGIN = "/opt/compound-engineering-plugin";
/** The CE plugin's name: its skills are invoked as `compound-engineering:<skill>`. */
const CE_PLUGIN_PREFIX = "compound-engineering";
/** The CE plugin's skills that stand in for the suite's plan, work and review skills (reference §3.6). */
export const CE_SKILLS: SuiteSkills = { plan: "ce-plan", work: "ce-work", review: "ce-code-review" };

/** Where plan documents live (reference §6.6). */
export const PLAN_DIR = "docs/plans";

/** Appended to every work prompt (reference §3.6, HEADLESS_VERIFY, paraphrased). */
export const HEADLESS_VERIFY =
  "Verification counts only if you observe it in this session: run the typecheck and the tests in the foreground until they finish. Never background them or wait for a scheduled wake-up.";

/** Appended to the `baseline_nomcp` prompt (reference Appendix B, GITNEXUS_UNAVAILABLE_NOTE, generalised and reworded). */
export const MCP_UNAVAILABLE_NOTE = "No MCP code-intelligence tools are available in this session: work with the built-in tools only.";

/** One headless session of an arm. */
export interface SessionSpec {
  readonly phase: "plan" | "work" | "review";
  readonly prompt: string;
  /** The skill the session must invoke; null for baselines. */
  readonly expectedSkill: string | null;
  /** Whether the Skill tool is removed from the session. */
  readonly disallowSkill: boolean;
  /** Whether the Edit tool is offered (false for review sessions, reference §6.4 `allow_edit`). */
  readonly allowEdit: boolean;
  /** `--disable-slash-commands` (baseline_nomcp, reference §6.4); absent: slash commands stay. */
  readonly disableSlashCommands?: true;
  /** Whether the Write tool is offered; absent: it is (the proposer session sets false: Read, Grep, Glob, Bash only). */
  readonly allowWrite?: false;
}

/** True when the arm runs on this kind of task: review arms on review tasks, implementation arms on the others. */
export function isArmForTask(arm: Arm, reviewTask: boolean): boolean {
  const logic = resolveIncumbentArm(arm);
  return reviewTask ? REVIEW_ARMS.includes(logic) : IMPLEMENTATION_ARMS.includes(logic);
}

/**
 * The evaluated skills of an arm (Appendix B `EVALUATED_ARM_SKILLS`, a candidate arm's are its incumbent's): the
 * repository skills the cell must keep intact. Empty for baselines and for CE arms, whose skills come from the
 * read-only plugin mount instead.
 */
export function listArmSkills(requested: Arm, skills: SuiteSkills): readonly string[] {
  if (isCeArm(requested)) return [];
  const arm = resolveIncumbentArm(requested);
  if (arm === "workflow") return [skills.plan, skills.work];
  if (arm === "workflow_direct") return [skills.work];
  if (arm === "review") return [skills.review];
  return [];
}

/**
 * The sessions of an arm with their prompts (reference §3.6 structure, own wording). The workflow work prompt needs
 * the plan path, known only after the plan session; pass it once found. Trusts the task text as the same for every arm.
 */
export function buildArmSessions(requested: Arm, task: string, suiteSkills: SuiteSkills, planPath?: string): readonly SessionSpec[] {
  // A candidate arm plays its incumbent's sessions word for word: only the skill files differ. A CE arm plays the
  // same shapes naming the plugin's skills; the expected skill is the bare name (the stream check drops the prefix).
  const arm = resolveIncumbentArm(requested);
  const ce = isCeArm(requested);
  const skills = ce ? CE_SKILLS : suiteSkills;
  const name = (skill: string): string => (ce ? `${CE_PLUGIN_PREFIX}:${skill} skill (compound-engineering plugin)` : `${skill} skill`);
  if (arm === "review") {
    return [
      {
        phase: "review",
        prompt: `Use the ${name(skills.review)} to review the local uncommitted changes in this repository. ${task}\n\nHeadless run: nobody will answer questions. The workspace is read-only; do not post to GitHub or anywhere external.\n\n${buildReviewPromptContract()}`,
        expectedSkill: skills.review,
        disallowSkill: false,
        allowEdit: false,
      },
    ];
  }
  if (arm === "baseline" || arm === "baseline_nomcp") {
    const note = arm === "baseline_nomcp" ? `\n\n${MCP_UNAVAILABLE_NOTE}` : "";
    return [
      {
        phase: "work",
        prompt: `${task}\n\nImplement the change in this repository and verify it by running the relevant tests. Work autonomously: nobody will answer questions.${note}`,
        expectedSkill: null,
        disallowSkill: true,
        allowEdit: true,
        ...(arm === "baseline_nomcp" ? { disableSlashCommands: true as const } : {}),
      },
    ];
  }
  const direct: SessionSpec = {
    phase: "work",
    prompt: `Use the ${name(skills.work)} for: ${task}\n\nThe user declines a separate planning pass: execute in direct mode.\n\n${HEADLESS_VERIFY}`,
    expectedSkill: skills.work,
    disallowSkill: false,
    allowEdit: true,
  };
  if (arm === "workflow_direct") return [direct];
  const plan: SessionSpec = {
    phase: "plan",
    prompt: `Use the ${name(skills.plan)} for: ${task}\n\nHeadless run: nobody will answer questions, and the plan document under ${PLAN_DIR}/ is the deliverable.`,
    expectedSkill: skills.plan,
    disallowSkill: false,
    allowEdit: true,
  };
  const work: SessionSpec = {
    phase: "work",
    prompt: `Use the ${name(skills.work)} to execute the plan at ${planPath ?? `${PLAN_DIR}/<plan>`}. Report the Definition of Done status at the end.\n\n${HEADLESS_VERIFY}`,
    expectedSkill: skills.work,
    disallowSkill: false,
    allowEdit: true,
  };
  return [plan, work];
}
