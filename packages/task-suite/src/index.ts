export { isTaskSuiteError } from "./errors.js";
export type { SuiteSkills } from "./schema.js";
export { loadTaskSuite } from "./load-task-suite.js";
export type { Task } from "./load-task-suite.js";
export { createTaskSourceResolver } from "./resolve-task-source.js";
export type { ResolvedSource } from "./resolve-task-source.js";
export { digestTaskPrompt } from "./digest-task-prompt.js";
export { isReviewTask } from "./is-review-task.js";
