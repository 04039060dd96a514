/** An expected outcome: a value, or a rejection the caller is meant to handle (never thrown). */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** A refused declaration: `field` names the offending input, e.g. `hiddenPaths[2]`. */
export interface DeclarationRejection {
  readonly kind: "invalid-declaration";
  readonly field: string;
  readonly message: string;
}
