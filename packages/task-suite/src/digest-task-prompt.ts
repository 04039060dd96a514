import { sha256Hex } from "@wfbench/digest";

/** sha256 hex of the prompt's UTF-8 bytes, unnormalised (reference §4.5); the one helper every call site uses. */
export function digestTaskPrompt(prompt: string): string {
  return sha256Hex(prompt);
}
