/** Stable codes for task-suite failures; callers branch on these, never on messages. */
export type TaskSuiteErrorCode = "TASK_SUITE_GIT_FAILED" | "TASK_SUITE_ASSETS_FAILED";

/** Base error of task-suite: thrown for environment failures (git, unreadable source trees), never for bad task files. */
export class TaskSuiteError extends Error {
  readonly code: TaskSuiteErrorCode;
  constructor(code: TaskSuiteErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TaskSuiteError";
    this.code = code;
  }
}

/** True for any TaskSuiteError, also across module copies (checks the code prefix, not identity). */
export function isTaskSuiteError(value: unknown): value is TaskSuiteError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("TASK_SUITE_");
}
