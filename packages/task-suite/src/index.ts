export { isTaskSuiteError } from "./errors.js";
export type { SuiteSkills } from "./schema.js";
export { INDEX_OUTPUT_DIR, MCP_MOUNT_ROOT } from "./schema.js";
export { loadTaskSuite } from "./load-task-suite.js";
export type { IndexBuilder, McpServer, Task } from "./load-task-suite.js";
export { createTaskSourceResolver } from "./resolve-task-source.js";
export type { ResolvedSource } from "./resolve-task-source.js";
export { digestTaskPrompt } from "./digest-task-prompt.js";
export { isReviewTask } from "./is-review-task.js";
export { buildTaskBinding } from "./build-task-binding.js";
export type { TaskDefinitionBinding } from "./build-task-binding.js";
export {
  MAX_REVIEW_CASE_PATCH_BYTES,
  REVIEW_CASES_DIR,
  REVIEW_CASE_LABEL_SOURCES,
  REVIEW_CASE_SUITE_DIR,
  ReviewCaseManifestSchema,
  loadReviewCaseCorpus,
  reviewCasePatchName,
  reviewCaseSetupCommand,
} from "./review-case-corpus.js";
export type { ReviewCase, ReviewCaseCorpus, ReviewCaseCorpusRefusal, ReviewCaseCorpusResult } from "./review-case-corpus.js";
