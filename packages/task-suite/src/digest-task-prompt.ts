import { createHash } from "node:crypto";

/** sha256 hex of the prompt's UTF-8 bytes, unnormalised (reference §4.5); the one helper every call site uses. */
export function digestTaskPrompt(prompt: string): string {
  return createHash("sha256").update(prompt, "utf8").digest("hex");
}
