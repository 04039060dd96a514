/** Replaces every literal occurrence of each secret (blank ones ignored) with `[REDACTED]`; trusts nothing else. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length < 4) continue;
    out = out.split(secret).join("[REDACTED]");
  }
  return out;
}
