import { EvidenceOptionsError, truncateForMessage, type EvidenceRejection } from "./errors.js";
import type { ParseEvidenceOutcome } from "./parse-evidence-stream.js";
import { PermissionDenialSchema, ProcessOutcomeSchema, ResultUsageSchema, SESSION_ID_PATTERN, type ProcessOutcome, type StreamEvent } from "./schema.js";
import { countApiRetries } from "./summarize-usage.js";

/** Why a session is not ok; several can hold at once. */
export type SessionFailureReason =
  | "event-stream"
  | "process-state"
  | "process-exit"
  | "is-error"
  | "error-subtype"
  | "usage-missing";

/** A permission the CLI refused (tool input deliberately left out: it may carry secrets). */
export interface PermissionDenial {
  readonly toolName: string;
  readonly toolUseId: string;
}

/** The row's session-error detail, with the field names the row schema uses. */
export interface SessionErrorDetail {
  readonly subtype: string | null;
  readonly returncode: number | null;
  readonly process_state: string;
  /** Last 2000 characters of the stderr / stdout tails the runner handed in (null when none). */
  readonly stderr_tail: string | null;
  readonly stdout_tail: string | null;
  readonly process_detail: string | null;
  readonly event_stream_error: string | null;
  readonly is_error: boolean | null;
  readonly terminal_reason: string | null;
  readonly api_error_status: number | null;
  readonly errors: readonly string[];
}

/** How one session ended, from the result event and the process outcome together. */
export interface SessionOutcome {
  readonly ok: boolean;
  readonly errorKind: "session-error" | "cancelled" | null;
  readonly reasons: readonly SessionFailureReason[];
  readonly sessionId: string | null;
  readonly subtype: string | null;
  readonly isError: boolean | null;
  readonly terminalReason: string | null;
  readonly apiErrorStatus: number | null;
  readonly errors: readonly string[];
  readonly exitCode: number | null;
  readonly processState: string;
  readonly maxTurns: boolean;
  readonly budgetExhausted: boolean;
  readonly permissionDenials: readonly PermissionDenial[];
  readonly apiRetries: number;
  readonly eventStreamError: EvidenceRejection | null;
  /** Set when `errorKind` is set. */
  readonly detail: SessionErrorDetail | null;
}

const MAX_ERRORS = 20;
const MAX_ERROR_CHARS = 500;

const MAX_TAIL_CHARS = 2000;

// The end of a tail is where the failure is; cut at the front without splitting a surrogate pair.
function keepTail(tail: string | null | undefined): string | null {
  if (tail === undefined || tail === null) return null;
  if (tail.length <= MAX_TAIL_CHARS) return tail;
  let start = tail.length - MAX_TAIL_CHARS;
  const code = tail.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start += 1;
  return tail.slice(start);
}

function readString(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function readErrors(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_ERRORS).map((entry) => truncateForMessage(typeof entry === "string" ? entry : JSON.stringify(entry) ?? "null", MAX_ERROR_CHARS));
}

function readDenials(value: unknown): PermissionDenial[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    const parsed = PermissionDenialSchema.safeParse(entry);
    return parsed.success ? [{ toolName: truncateForMessage(parsed.data.tool_name, 128), toolUseId: truncateForMessage(parsed.data.tool_use_id, 256) }] : [];
  });
}

function readSessionId(result: StreamEvent | null, events: readonly StreamEvent[]): string | null {
  const candidates = [result?.["session_id"], ...events.map((event) => event["session_id"])];
  const found = candidates.find((value) => typeof value === "string");
  return typeof found === "string" && SESSION_ID_PATTERN.test(found) ? found : null;
}

/**
 * Classifies a session from its parsed stream and the process outcome. Trusts the result event's fields only when the
 * stream parsed; `subtype: "success"` with `is_error: true` is an error; a missing or malformed usage is an error.
 * Everything else the stream says (tool text, assistant snapshots) is ignored here.
 * @throws {EvidenceOptionsError} when the process outcome is malformed.
 */
export function classifyOutcome(parse: ParseEvidenceOutcome, process: ProcessOutcome): SessionOutcome {
  const processParsed = ProcessOutcomeSchema.safeParse(process);
  if (!processParsed.success) throw new EvidenceOptionsError(`invalid process outcome: ${processParsed.error.message}`);
  const { exitCode, state } = processParsed.data;
  const processDetail = processParsed.data.detail ?? null;
  const result = parse.ok ? parse.value.result : null;
  const window = parse.ok ? parse.value.events : (parse.partialEvents ?? []);
  const eventStreamError = parse.ok ? null : parse.error;

  const subtype = readString(result?.["subtype"]);
  const isErrorRaw = result?.["is_error"];
  const isError = typeof isErrorRaw === "boolean" ? isErrorRaw : null;
  const terminalReason = readString(result?.["terminal_reason"]);
  const status = result?.["api_error_status"];
  const apiErrorStatus = typeof status === "number" && Number.isInteger(status) ? status : null;
  const errors = readErrors(result?.["errors"]);

  const reasons: SessionFailureReason[] = [];
  if (eventStreamError !== null) reasons.push("event-stream");
  if (state !== "exited") reasons.push("process-state");
  if (exitCode !== 0) reasons.push("process-exit");
  if (result !== null) {
    // A missing is_error is as untrustworthy as a true one: the CLI always writes it.
    if (isError !== false) reasons.push("is-error");
    if (subtype === null || subtype.startsWith("error")) reasons.push("error-subtype");
    if (!ResultUsageSchema.safeParse(result["usage"]).success) reasons.push("usage-missing");
  }
  const ok = reasons.length === 0;
  const errorKind = ok ? null : state === "cancelled" ? "cancelled" : "session-error";
  return {
    ok,
    errorKind,
    reasons,
    sessionId: readSessionId(result, window),
    subtype,
    isError,
    terminalReason,
    apiErrorStatus,
    errors,
    exitCode,
    processState: state,
    maxTurns: subtype === "error_max_turns" || terminalReason === "max_turns",
    budgetExhausted: subtype === "error_max_budget_usd" || terminalReason === "budget_exhausted",
    permissionDenials: readDenials(result?.["permission_denials"]),
    apiRetries: countApiRetries(window),
    eventStreamError,
    detail: ok
      ? null
      : {
          subtype,
          returncode: exitCode,
          process_state: state,
          stderr_tail: keepTail(processParsed.data.stderrTail),
          stdout_tail: keepTail(processParsed.data.stdoutTail),
          process_detail: processDetail === null ? null : truncateForMessage(processDetail, 2000),
          event_stream_error: eventStreamError === null ? null : `${eventStreamError.code}: ${eventStreamError.message}`,
          is_error: isError,
          terminal_reason: terminalReason,
          api_error_status: apiErrorStatus,
          errors,
        },
  };
}
