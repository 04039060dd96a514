/** Outcome of an expected-failure operation: a value or a coded, human-readable refusal. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };
