/** One git call: arguments after `git`, a working directory, extra env, and a hard deadline. */
export interface GitInvocation {
  readonly argv: readonly string[];
  readonly cwd: string;
  /** Added on top of the runner's own scrubbed environment; the runner's hardening keys always win. */
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Written to stdin, then stdin is closed. Without it stdin is empty. */
  readonly input?: string;
  /** Combined stdout+stderr ceiling; exceeding it is an error, never a silent truncation. */
  readonly maxOutputBytes?: number;
}

/** What a finished git process reported. A nonzero exit is data here, not an exception. */
export interface GitOutcome {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs git for the sanitizer. Implementations must not use a shell, must bound time and output, and throw
 * GitInvocationError (SANITIZER_GIT_SPAWN_FAILED / _TIMEOUT / _OUTPUT_LIMIT) when the process cannot finish normally.
 */
export interface GitRunner {
  run(invocation: GitInvocation): Promise<GitOutcome>;
}
