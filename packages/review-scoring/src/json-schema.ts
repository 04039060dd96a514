import { z } from "zod";
import { ReviewLabelsFileSchema, ReviewOutputFileSchema } from "./schema.js";

/**
 * JSON Schema (draft 2020-12) of review-output.json in canonical form, for people writing reviewers. It cannot
 * express byte limits, id uniqueness or the verdict coherence rules; parseReviewOutput remains the authority.
 */
export function buildReviewOutputJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ReviewOutputFileSchema, { target: "draft-2020-12" }) as Record<string, unknown>;
}

/** JSON Schema (draft 2020-12) of a hidden labels file; parseLabels remains the authority. */
export function buildReviewLabelsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ReviewLabelsFileSchema, { target: "draft-2020-12" }) as Record<string, unknown>;
}
