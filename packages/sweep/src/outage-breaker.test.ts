import { describe, expect, it } from "vitest";
import type { ErrorKind } from "@wfbench/result-row";
import { couldTripBy, createOutageBreaker } from "./outage-breaker.js";

const row = (error_kind: ErrorKind | null, review_evidence_valid: boolean | null = null) => ({ error_kind, review_evidence_valid });

describe("createOutageBreaker", () => {
  it("counts session, infra, cleanup and invalid-review rows and trips at the limit", () => {
    const breaker = createOutageBreaker(4);
    expect(breaker.fold(row("session-error"))).toEqual({ streak: 1, tripped: false });
    expect(breaker.fold(row("infra-error"))).toEqual({ streak: 2, tripped: false });
    expect(breaker.fold(row("cleanup-failure"))).toEqual({ streak: 3, tripped: false });
    expect(breaker.fold(row("review-evidence-invalid"))).toEqual({ streak: 4, tripped: true });
  });

  it("resets on a valid row, on evidence-unverified, skill-not-invoked, cancelled and valid negatives", () => {
    for (const reset of [null, "evidence-unverified", "skill-not-invoked", "cancelled", "verify-failed", "oracle-failed", "no-work-produced"] as const) {
      const breaker = createOutageBreaker(2);
      breaker.fold(row("session-error"));
      expect(breaker.fold(row(reset))).toEqual({ streak: 0, tripped: false });
      expect(breaker.fold(row("session-error")).tripped).toBe(false);
    }
  });

  it("treats review_evidence_valid false as review-evidence-invalid whatever the recorded kind, and a valid zero-quality review as a reset", () => {
    const breaker = createOutageBreaker(2);
    expect(breaker.fold(row("skill-not-invoked", false)).streak).toBe(1);
    expect(breaker.fold(row(null, true)).streak).toBe(0);
    breaker.fold(row(null, false));
    expect(breaker.fold(row("verify-failed", false))).toEqual({ streak: 2, tripped: true });
  });

  it("stays tripped after a reset, and refuses a negative or fractional limit", () => {
    const breaker = createOutageBreaker(1);
    expect(breaker.fold(row("infra-error")).tripped).toBe(true);
    expect(breaker.fold(row(null))).toEqual({ streak: 0, tripped: true });
    expect(() => createOutageBreaker(-1)).toThrow(RangeError);
    expect(() => createOutageBreaker(1.5)).toThrow(RangeError);
  });

  it("never trips with limit 0 (reference §2.1: 0 disables the breaker) but still counts the streak", () => {
    const breaker = createOutageBreaker(0);
    for (let index = 1; index <= 50; index += 1) expect(breaker.fold(row("session-error"))).toEqual({ streak: index, tripped: false });
    const known = new Map(Array.from({ length: 50 }, (_, index) => [index, true] as const));
    expect(couldTripBy(known, 49, 0)).toBe(false);
  });
});

describe("couldTripBy", () => {
  it("counts unknown indices as possibly systemic and known non-systemic ones as resets", () => {
    const known = new Map<number, boolean>();
    expect(couldTripBy(known, 1, 3)).toBe(false);
    expect(couldTripBy(known, 2, 3)).toBe(true);
    known.set(1, false);
    expect(couldTripBy(known, 3, 3)).toBe(false);
    expect(couldTripBy(known, 4, 3)).toBe(true);
    known.set(2, true).set(3, true).set(4, false);
    expect(couldTripBy(known, 6, 3)).toBe(false);
    expect(couldTripBy(known, -1, 1)).toBe(false);
  });
});
