import { describe, expect, it } from "vitest";
import { makeAggregate } from "../test/support/aggregates.js";
import { GENERATED_AT, makeBindings, makePromotionInput, makePromotionJson } from "../test/support/promotion.js";
import { buildPromotion } from "./build-promotion.js";
import { validatePromotionForApply } from "./validate-promotion-for-apply.js";

const NOW = new Date(GENERATED_AT.getTime() + 60_000);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests mutate parsed JSON freely

function refusalOf(mutate: (promotion: Json) => void, now: Date = NOW, bindings = makeBindings()) {
  const promotion = makePromotionJson() as Json;
  mutate(promotion);
  const result = validatePromotionForApply(promotion, bindings, now);
  if (result.ok) throw new Error("expected a refusal");
  return result.error;
}

describe("validatePromotionForApply", () => {
  it("accepts promotable evidence that recomputes to the stored decisions", () => {
    const result = validatePromotionForApply(makePromotionJson(), makeBindings(), NOW);
    expect(result.ok).toBe(true);
  });

  it.each([
    ["schema 5", (p: Json): unknown => (p["schema_version"] = 5), "schema_version", /regenerate evidence/],
    ["an aborted run", (p: Json): unknown => (p["run_status"] = "aborted"), "run_status", /partial evidence/],
    ["no required arms", (p: Json): unknown => (p["required_candidate_arms"] = []), "required_candidate_arms", /non-empty/],
    ["a repeated arm", (p: Json): unknown => (p["required_candidate_arms"] = ["candidate_review", "candidate_review"]), "required_candidate_arms", /repeat/],
    ["an unknown arm", (p: Json): unknown => (p["required_candidate_arms"] = ["workflow"]), "required_candidate_arms[0]", /one of/],
    ["no tasks", (p: Json): unknown => (p["selected_tasks"] = []), "selected_tasks", /non-empty/],
    ["a repeated task id", (p: Json): unknown => (p["selected_tasks"][1].id = "task-a"), "selected_tasks[1].id", /repeats/],
    ["a blank task id", (p: Json): unknown => (p["selected_tasks"][0].id = "  "), "selected_tasks[0].id", /./],
    ["a short oracle digest", (p: Json): unknown => (p["selected_tasks"][0].oracle_digest = "abc"), "selected_tasks[0].oracle_digest", /64/],
    ["no oracle files", (p: Json): unknown => (p["selected_tasks"][0].oracle_files = []), "selected_tasks[0].oracle_files", /./],
    ["a boolean oracle size", (p: Json): unknown => (p["selected_tasks"][0].oracle_files[0].size = true), "selected_tasks[0].oracle_files[0].size", /./],
    ["a negative oracle size", (p: Json): unknown => (p["selected_tasks"][0].oracle_files[0].size = -1), "selected_tasks[0].oracle_files[0].size", /./],
    ["another benchmark model", (p: Json): unknown => (p["benchmark_model"] = "other"), "benchmark_model", /binding/],
    ["another proposer model", (p: Json): unknown => (p["proposer_model"] = null), "proposer_model", /binding/],
    ["another effort", (p: Json): unknown => (p["effort"] = "low"), "effort", /binding/],
    ["another origin", (p: Json): unknown => (p["candidate_origin"] = "manual-initial-overlay"), "candidate_origin", /binding/],
    ["another overlay digest", (p: Json): unknown => (p["candidate_overlay_digest"] = "0".repeat(64)), "candidate_overlay_digest", /binding/],
    ["reordered arms", (p: Json): unknown => p["required_candidate_arms"].reverse(), "required_candidate_arms", /binding/],
    ["a drifted task binding", (p: Json): unknown => (p["selected_tasks"][0].prompt_digest = "2".repeat(64)), "selected_tasks", /binding/],
    ["other target bases", (p: Json): unknown => (p["target_base_digests"] = {}), "target_base_digests", /binding/],
    ["a loosened policy", (p: Json): unknown => (p["policy"].candidate_workflow.min_runs = 1), "policy", /policy/],
    ["a naive timestamp", (p: Json): unknown => (p["generated_at"] = "2026-07-25T12:00:00"), "generated_at", /timezone/],
    // Out-of-range fields must be refused, not rolled over (11:60 would otherwise read as 12:00 and pass).
    ["an out-of-range minute", (p: Json): unknown => (p["generated_at"] = "2026-07-25T11:60:00Z"), "generated_at", /timezone/],
    ["an out-of-range second", (p: Json): unknown => (p["generated_at"] = "2026-07-25T11:59:60Z"), "generated_at", /timezone/],
    ["an out-of-range offset", (p: Json): unknown => (p["generated_at"] = "2026-07-25T12:00:00+24:00"), "generated_at", /timezone/],
    ["an out-of-range expiry minute", (p: Json): unknown => (p["evidence_expires_at"] = "2026-10-23T11:60:00Z"), "evidence_expires_at", /timezone/],
    ["a future generation time", (p: Json): unknown => (p["generated_at"] = "2026-07-25T12:06:01Z"), "generated_at", /future/],
    ["an expiry before generation", (p: Json): unknown => (p["evidence_expires_at"] = "2026-07-25T11:00:00Z"), "evidence_expires_at", /after/],
    ["an expiry beyond 90 days", (p: Json): unknown => (p["evidence_expires_at"] = "2026-10-23T12:00:00.001Z"), "evidence_expires_at", /90 days/],
    ["an unrelated decision arm", (p: Json): unknown => (p["decisions"][0].candidate_arm = "candidate_workflow_direct"), "decisions[0].candidate_arm", /not a required arm/],
    ["a duplicated decision", (p: Json): unknown => (p["decisions"][1] = p["decisions"][0]), "decisions[1].candidate_arm", /repeats/],
    ["a missing decision", (p: Json): unknown => p["decisions"].pop(), "decisions", /one decision per required arm/],
    ["a wrong incumbent", (p: Json): unknown => (p["decisions"][0].incumbent_arm = "baseline"), "decisions[0].incumbent_arm", /workflow/],
    ["a keep decision", (p: Json): unknown => (p["decisions"][0].decision = "keep_incumbent"), "decisions[0].decision", /not promote/],
    ["a metric other than the policy's", (p: Json): unknown => (p["decisions"][0].metric = "output_tokens"), "decisions[0].metric", /policy metric/],
    ["a repeated task row", (p: Json): unknown => (p["decisions"][0].tasks[1] = p["decisions"][0].tasks[0]), "decisions[0].tasks[1].task", /repeats/],
    ["a missing task row", (p: Json): unknown => p["decisions"][0].tasks.pop(), "decisions[0].tasks", /selected task ids/],
    ["runs that do not add up", (p: Json): unknown => (p["decisions"][0].tasks[0].incumbent.runs = 4), "decisions[0].tasks[0].incumbent.runs", /valid_runs \+ excluded_runs/],
    ["resolved beyond valid", (p: Json): unknown => (p["decisions"][0].tasks[0].candidate.resolved = 4), "decisions[0].tasks[0].candidate.resolved", /valid_runs/],
    // §5.2 invariants of the embedded aggregates: each of these recomputed to the stored decision and was accepted.
    ["an error kind counted zero times", (p: Json): unknown => (p["decisions"][0].tasks[0].candidate.error_kinds = { "skill-not-invoked": 0 }), "decisions[0].tasks[0].candidate.error_kinds.skill-not-invoked", /at least 1/],
    ["an error kind outside §4.3", (p: Json): unknown => (p["decisions"][0].tasks[0].incumbent.error_kinds = { timeout: 1 }), "decisions[0].tasks[0].incumbent.error_kinds.timeout", /error kind/],
    ["fresh resolved beyond resolved", (p: Json): unknown => (p["decisions"][0].tasks[0].candidate.resolved_fresh = 4), "decisions[0].tasks[0].candidate.resolved_fresh", /resolved/],
    ["missing transcripts beyond runs", (p: Json): unknown => (p["decisions"][1].tasks[0].incumbent.transcripts_missing = 9), "decisions[1].tasks[0].incumbent.transcripts_missing", /runs/],
    ["a fractional count", (p: Json): unknown => (p["decisions"][0].tasks[0].candidate.valid_runs = 2.5), "decisions[0].tasks[0].candidate.valid_runs", /./],
    ["a negative metric", (p: Json): unknown => (p["decisions"][0].tasks[0].candidate.cost_usd = -1), "decisions[0].tasks[0].candidate.cost_usd", /non-negative/],
    ["a weighted F1 above 1", (p: Json): unknown => (p["decisions"][1].tasks[0].candidate.review_weighted_f1 = 1.5), "decisions[1].tasks[0].candidate.review_weighted_f1", /\[0, 1\]/],
    ["a null weighted F1 on a defect case", (p: Json): unknown => (p["decisions"][1].tasks[0].candidate.review_weighted_f1 = null), "decisions[1].tasks[0].candidate.review_weighted_f1", /clean control/],
    ["a missing verdict flag", (p: Json): unknown => (p["decisions"][1].tasks[0].candidate.review_verdict_correct = null), "decisions[1].tasks[0].candidate.review_verdict_correct", /boolean/],
    ["clean-control flags that differ", (p: Json): unknown => (p["decisions"][1].tasks[0].candidate.review_clean_control = true), "decisions[1].tasks[0].candidate.review_clean_control", /incumbent/],
    ["an ungated list that lies", (p: Json): unknown => (p["decisions"][0].ungated_tasks = ["task-a"]), "decisions[0].ungated_tasks", /gated=false/],
    ["edited reasons", (p: Json): unknown => p["decisions"][0].reasons.push("trust me"), "decisions[0]", /recomputed/],
    ["an edited median", (p: Json): unknown => (p["decisions"][0].median_improvement_pct = 50), "decisions[0]", /recomputed/],
    ["an extra aggregate key", (p: Json): unknown => (p["decisions"][0].tasks[0].incumbent.note = "x"), "decisions[0]", /recomputed/],
    ["an unknown top-level key", (p: Json): unknown => (p["verified"] = true), "(root)", /./],
  ] as const)("refuses %s", (_name, mutate, field, message) => {
    const error = refusalOf(mutate);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it("refuses evidence whose embedded aggregates no longer support the stored promote", () => {
    const error = refusalOf((p) => {
      // The candidate now resolves fewer runs: the stored "promote" would recompute to keep_incumbent.
      const row = p["decisions"][0].tasks[0];
      row.candidate = { ...makeAggregate({ cost_usd: 0.89, resolved: 2 }) };
      row.candidate_resolved = "2/3";
    });
    expect(error.field).toBe("decisions[0]");
  });

  it("accepts expiry exactly now and refuses one millisecond after", () => {
    const expires = new Date(GENERATED_AT.getTime() + 90 * 86_400_000);
    expect(validatePromotionForApply(makePromotionJson(), makeBindings(), expires).ok).toBe(true);
    const late = validatePromotionForApply(makePromotionJson(), makeBindings(), new Date(expires.getTime() + 1));
    expect(late.ok ? null : late.error.field).toBe("evidence_expires_at");
  });

  it("accepts a generation time exactly 5 minutes ahead and an offset timezone", () => {
    expect(refusalOf((p) => (p["generated_at"] = "2026-07-25T12:06:00.001+00:00")).field).toBe("generated_at");
    const input = makePromotionInput();
    const promotion = JSON.parse(JSON.stringify(buildPromotion(input))) as Json;
    promotion["generated_at"] = "2026-07-25T14:06:00+02:00";
    expect(validatePromotionForApply(promotion, makeBindings(input), NOW).ok).toBe(true);
  });

  it("refuses a promotion that is not an object and bindings without a model", () => {
    expect(validatePromotionForApply([], makeBindings(), NOW)).toMatchObject({ ok: false, error: { field: "(root)" } });
    const bindings = { ...makeBindings(), benchmark_model: "" };
    expect(validatePromotionForApply(makePromotionJson(), bindings, NOW)).toMatchObject({ ok: false, error: { field: "bindings.benchmark_model" } });
  });
});

describe("validatePromotionForApply: audit findings", () => {
  it("recomputes evidence whose aggregates list an unmeasured metric the policy does not gate on", () => {
    const input = makePromotionInput();
    const results = { ...input.results, "task-a": { ...input.results["task-a"], candidate_workflow: makeAggregate({ cost_usd: 0.89, unmeasured_metrics: ["num_turns"] }) } };
    const withUnmeasured = makePromotionInput({ results });
    const promotion = makePromotionJson(withUnmeasured);
    expect(((promotion["decisions"] as Json[])[0]?.["tasks"] as Json[])[0]?.["candidate"].unmeasured_metrics).toEqual(["num_turns"]);
    expect(validatePromotionForApply(promotion, makeBindings(withUnmeasured), NOW).ok).toBe(true);
  });
});
