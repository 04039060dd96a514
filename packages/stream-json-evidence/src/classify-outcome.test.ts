import { describe, expect, it } from "vitest";
import { encode, init, jsonl, result } from "../test/support/events.js";
import { classifyOutcome } from "./classify-outcome.js";
import { parseEvidenceBytes, type ParseEvidenceOutcome } from "./parse-evidence-stream.js";
import type { JsonObject, ProcessOutcome } from "./schema.js";

const exited0: ProcessOutcome = { exitCode: 0, state: "exited" };
const parse = (events: JsonObject[]): ParseEvidenceOutcome => parseEvidenceBytes(encode(jsonl(events)));

describe("classifyOutcome", () => {
  it("is ok only when the process, the stream and the result all agree", () => {
    const outcome = classifyOutcome(parse([init(), result()]), exited0);
    expect(outcome).toMatchObject({ ok: true, errorKind: null, reasons: [], detail: null, sessionId: "s-1", apiRetries: 0 });
  });

  it("treats subtype success with is_error true as a session error", () => {
    const outcome = classifyOutcome(parse([init(), result({ is_error: true, terminal_reason: "api_error", api_error_status: 529, errors: ["overloaded"] })]), exited0);
    expect(outcome).toMatchObject({ ok: false, errorKind: "session-error", reasons: ["is-error"], subtype: "success", apiErrorStatus: 529, errors: ["overloaded"] });
    expect(outcome.detail).toMatchObject({ subtype: "success", returncode: 0, process_state: "exited", is_error: true, terminal_reason: "api_error" });
  });

  it.each([
    ["a missing is_error", { is_error: null }, ["is-error"]],
    ["an error subtype", { subtype: "error_during_execution" }, ["error-subtype"]],
    ["missing usage", { usage: null }, ["usage-missing"]],
    ["usage with a fractional count", { usage: { input_tokens: 1.5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } }, ["usage-missing"]],
  ])("fails on %s", (_label, fields, reasons) => {
    expect(classifyOutcome(parse([result(fields as JsonObject)]), exited0).reasons).toEqual(reasons);
  });

  it("puts the last 2000 characters of the stdout and stderr tails into a session-error detail", () => {
    const stderrTail = `${"e".repeat(3000)}END`;
    const outcome = classifyOutcome(parse([result({ is_error: true })]), { exitCode: 1, state: "exited", stderrTail, stdoutTail: "short" });
    expect(outcome.detail?.stderr_tail).toBe(stderrTail.slice(-2000));
    expect(outcome.detail?.stdout_tail).toBe("short");
    const bare = classifyOutcome(parse([result({ is_error: true })]), { exitCode: 1, state: "exited" });
    expect(bare.detail).toMatchObject({ stderr_tail: null, stdout_tail: null });
    expect(Object.keys(bare.detail ?? {})).toEqual(expect.arrayContaining(["subtype", "returncode", "process_state", "stderr_tail", "stdout_tail", "process_detail", "event_stream_error"]));
  });

  it("flags max turns and budget exhaustion", () => {
    const maxTurns = classifyOutcome(parse([result({ subtype: "error_max_turns", is_error: true })]), { exitCode: 1, state: "exited" });
    expect(maxTurns).toMatchObject({ maxTurns: true, budgetExhausted: false, reasons: ["process-exit", "is-error", "error-subtype"] });
    const budget = classifyOutcome(parse([result({ subtype: "error_max_budget_usd", is_error: true, terminal_reason: "budget_exhausted" })]), { exitCode: 1, state: "exited" });
    expect(budget.budgetExhausted).toBe(true);
  });

  it("counts api_retry events and reports permission denials without their inputs", () => {
    const outcome = classifyOutcome(
      parse([
        init(),
        { type: "system", subtype: "api_retry", attempt: 1, max_retries: 2, retry_delay_ms: 500, error_status: 529, error: "overloaded" },
        { type: "system", subtype: "api_retry", attempt: 2, max_retries: 2, retry_delay_ms: 1000, error_status: 529, error: "overloaded" },
        result({ permission_denials: [{ tool_name: "Bash", tool_use_id: "t1", tool_input: { command: "rm -rf /" } }, { bogus: true }] }),
      ]),
      exited0,
    );
    expect(outcome.apiRetries).toBe(2);
    expect(outcome.permissionDenials).toEqual([{ toolName: "Bash", toolUseId: "t1" }]);
    expect(outcome.ok).toBe(true);
  });

  it("turns a refused stream into a session error that names the refusal", () => {
    const outcome = classifyOutcome(parse([init(), result(), result()]), exited0);
    expect(outcome).toMatchObject({ ok: false, errorKind: "session-error", reasons: ["event-stream"], subtype: null });
    expect(outcome.detail?.event_stream_error).toMatch(/^EVIDENCE_RESULT_DUPLICATE: /);
  });

  it("uses partial events of a killed session for retries and session id", () => {
    const outcome = classifyOutcome(parse([init(), { type: "system", subtype: "api_retry" }]), { exitCode: null, state: "timeout", detail: "killed after 1800 s" });
    expect(outcome).toMatchObject({ errorKind: "session-error", apiRetries: 1, sessionId: "s-1", reasons: ["event-stream", "process-state", "process-exit"] });
    expect(outcome.detail?.process_detail).toBe("killed after 1800 s");
  });

  it("reports cancellation as its own kind", () => {
    expect(classifyOutcome(parse([init(), result()]), { exitCode: null, state: "cancelled" }).errorKind).toBe("cancelled");
  });

  it("drops a session id outside [A-Za-z0-9_-]{1,128}", () => {
    expect(classifyOutcome(parse([result({ session_id: "../../etc" })]), exited0).sessionId).toBeNull();
  });

  it("throws EVIDENCE_INVALID_OPTIONS on a malformed process outcome", () => {
    expect(() => classifyOutcome(parse([result()]), { exitCode: 0.5, state: "exited" })).toThrow(expect.objectContaining({ code: "EVIDENCE_INVALID_OPTIONS" }));
  });
});
