import { formatIssuePath } from "@wfbench/pycompat";
import type { z } from "zod";
import type { DeclarationRejection, Result } from "./result.js";

/** Parse untrusted input with `schema`; the first issue becomes a rejection naming its field. */
export function parseDeclaration<S extends z.ZodType>(
  schema: S,
  input: unknown,
  fieldPrefix = "",
): Result<z.output<S>, DeclarationRejection> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const field = formatIssuePath(issue?.path ?? [], fieldPrefix);
  return {
    ok: false,
    error: {
      kind: "invalid-declaration",
      field,
      message: issue?.message ?? "invalid input",
    },
  };
}
