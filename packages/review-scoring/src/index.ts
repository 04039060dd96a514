export { MAX_REVIEW_BYTES, REVIEW_OUTPUT, REVIEW_OUTPUT_ENV_VAR, SANDBOX_REVIEW_OUTPUT, SANDBOX_REVIEW_OUTPUT_PATH } from "./constants.js";
export { parseReviewOutput } from "./parse-review-output.js";
export { parseLabels } from "./parse-labels.js";
export { flattenReviewScore, isReviewOraclePassed, scoreReview } from "./score-review.js";
export { buildReviewPromptContract } from "./prompt-contract.js";
