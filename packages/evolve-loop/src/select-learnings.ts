import { z } from "zod";

/** At most this many learnings reach the proposer: the most recent ones (reference Appendix A). */
export const MAX_LEARNINGS = 40;

const LEARNING = z.looseObject({ skill: z.string() });

/** One learning-queue row as the proposer sees it: the JSON object as written, its skill checked. */
export type Learning = z.infer<typeof LEARNING>;

/**
 * The last MAX_LEARNINGS rows of a learnings.jsonl text whose `skill` is one of `candidateSkills` — the suite's
 * evaluated skills (`skills:` of the tasks YAML), the only ones an overlay may change (reference §9.6). Trusts nothing
 * in the text: they are hints only, so malformed lines, non-objects and other skills are skipped, not errors.
 */
export function selectLearnings(jsonlText: string, candidateSkills: readonly string[]): Learning[] {
  const rows: Learning[] = [];
  for (const line of jsonlText.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = LEARNING.safeParse(value);
    if (parsed.success && candidateSkills.includes(parsed.data.skill)) rows.push(parsed.data);
  }
  return rows.slice(-MAX_LEARNINGS);
}
