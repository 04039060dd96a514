/** An expected outcome: a value or a refusal, never an exception. */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };
