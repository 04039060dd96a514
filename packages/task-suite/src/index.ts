export { TaskSuiteError, isTaskSuiteError } from "./errors.js";
export type { TaskSuiteErrorCode } from "./errors.js";
export { RepoRelativePathSchema, SKILL_NAME_PATTERN, SandboxDependencySchema, SuiteFileSchema, SuiteSkillsSchema, TASK_ID_PATTERN, TaskEntrySchema } from "./schema.js";
export type { SuiteSkills, TaskEntry } from "./schema.js";
export { DEFAULT_SUITE_SKILLS, loadTaskSuite, parseTaskSuite } from "./load-task-suite.js";
export type { LoadTaskSuiteOptions, Task, TaskSuite, TaskSuiteRefusal, TaskSuiteResult } from "./load-task-suite.js";
export { PLAIN_SOURCE_COMMIT_ENV, createTaskSourceResolver } from "./resolve-task-source.js";
export type { ResolveSourceResult, ResolvedSource, SourceRefusal, TaskSourceResolver, TaskSourceResolverOptions } from "./resolve-task-source.js";
export { digestTaskPrompt } from "./digest-task-prompt.js";
