import { z } from "zod";

/** Skills a candidate overlay may change; learnings about other skills are not shown to the proposer (reference §9.1). */
export const CANDIDATE_SKILLS = ["gitnexus-plan", "gitnexus-review", "gitnexus-work"] as const;
/** At most this many learnings reach the proposer: the most recent ones (reference Appendix A). */
export const MAX_LEARNINGS = 40;

const LEARNING = z.looseObject({ skill: z.enum(CANDIDATE_SKILLS) });

/** One learning-queue row as the proposer sees it: the JSON object as written, its skill checked. */
export type Learning = z.infer<typeof LEARNING>;

/**
 * The last MAX_LEARNINGS rows of a learnings.jsonl text whose `skill` is a candidate skill (reference §9.6). Trusts
 * nothing in the text: they are hints only, so malformed lines, non-objects and other skills are skipped, not errors.
 */
export function selectLearnings(jsonlText: string): Learning[] {
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
    if (parsed.success) rows.push(parsed.data);
  }
  return rows.slice(-MAX_LEARNINGS);
}
