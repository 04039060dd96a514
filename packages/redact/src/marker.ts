/** The one marker every redacted value becomes, in every log, row, transcript and message. */
export const REDACTED = "[REDACTED]";
