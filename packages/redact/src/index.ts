export { MIN_SECRET_CHARS, REDACTED, createTextRedactor, redactKnownSecrets, redactText } from "./redact-text.js";
export type { TextRedactor } from "./redact-text.js";
export { SENSITIVE_KEYS, isSensitiveHeaderName, redactHeaders } from "./redact-headers.js";
