import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { checkModelName, parseArgs } from "./parse-args.js";

const CONTEXT = { root: "/repo", cwd: "/repo/sub", now: new Date("2026-01-02T03:04:05.678Z") };

describe("parseArgs", () => {
  it("reads the upstream flags verbatim (resolution and hygiene live in resolveUpstreamSettings) and defaults them to null", () => {
    const given = parseArgs(["--base-url", "http://127.0.0.1:4000", "--auth-token=tok"], CONTEXT);
    expect(given.ok && given.value).toMatchObject({ baseUrl: "http://127.0.0.1:4000", authToken: "tok", anthropicApiKey: null });
    const none = parseArgs([], CONTEXT);
    expect(none.ok && none.value).toMatchObject({ baseUrl: null, authToken: null, anthropicApiKey: null });
    const twice = parseArgs(["--anthropic-api-key", "a", "--anthropic-api-key", "b"], CONTEXT);
    expect(twice.ok ? null : twice.error.flag).toBe("--anthropic-api-key");
    const openai = parseArgs(["--openai-api-key=sk-o", "--model", "gpt-4.1-mini"], CONTEXT);
    expect(openai.ok && openai.value).toMatchObject({ openaiApiKey: "sk-o", model: "gpt-4.1-mini", anthropicApiKey: null });
    expect(none.ok && none.value).toMatchObject({ openaiApiKey: null });
  });

  it("reads --outage-streak (default 5) and refuses 0, negatives and non-integers naming the flag", () => {
    const none = parseArgs([], CONTEXT);
    expect(none.ok && none.value.outageStreak).toBe(5);
    const given = parseArgs(["--outage-streak", "2"], CONTEXT);
    expect(given.ok && given.value.outageStreak).toBe(2);
    const disabled = parseArgs(["--outage-streak", "0"], CONTEXT);
    expect(disabled.ok && disabled.value.outageStreak).toBe(0);
    for (const bad of ["-1", "1.5", "x"]) {
      const refused = parseArgs([`--outage-streak=${bad}`], CONTEXT);
      expect(refused.ok ? null : refused.error).toMatchObject({ flag: "--outage-streak", message: expect.stringContaining("--outage-streak") });
    }
  });

  it("reads --shard k/N (default: the whole sweep) and refuses k outside 1..N naming the flag", () => {
    const none = parseArgs([], CONTEXT);
    expect(none.ok && none.value.shard).toBeNull();
    const given = parseArgs(["--shard", "2/3"], CONTEXT);
    expect(given.ok && given.value.shard).toEqual({ index: 2, count: 3 });
    for (const bad of ["0/3", "4/3", "3", "a/b"]) {
      const refused = parseArgs([`--shard=${bad}`], CONTEXT);
      expect(refused.ok ? null : refused.error).toMatchObject({ flag: "--shard", message: expect.stringContaining("--shard") });
    }
  });

  describe("CE plugin flags (reference §2.1)", () => {
    const CE = ["--ce-plugin-dir", "plugins/ce", "--ce-plugin-version", "3.23.1"];
    const refusal = (argv: string[], context = CONTEXT) => {
      const parsed = parseArgs(argv, context);
      return parsed.ok ? null : parsed.error;
    };

    it("takes both with a CE arm, resolving the directory against cwd, and defaults both to null", () => {
      const parsed = parseArgs(["--arms", "ce_workflow", "ce_review", ...CE], CONTEXT);
      expect(parsed.ok && parsed.value).toMatchObject({ arms: ["ce_workflow", "ce_review"], cePluginDir: "/repo/sub/plugins/ce", cePluginVersion: "3.23.1" });
      const none = parseArgs([], CONTEXT);
      expect(none.ok && none.value).toMatchObject({ cePluginDir: null, cePluginVersion: null, unsafeNoBwrap: false });
    });

    it("refuses a CE arm without either flag, naming the missing one and the fix", () => {
      expect(refusal(["--arms", "ce_workflow_direct"])).toMatchObject({ flag: "--ce-plugin-dir", message: expect.stringContaining("--arms ce_workflow_direct needs --ce-plugin-dir <dir>") });
      expect(refusal(["--arms", "ce_review", "--ce-plugin-dir", "p"])).toMatchObject({ flag: "--ce-plugin-version", message: expect.stringContaining("e.g. --ce-plugin-version 3.23.1") });
    });

    it("refuses a version that is not one exact semantic version", () => {
      for (const bad of ["3.23", "v3.23.1", "^3.23.1", "03.1.0", "latest"]) {
        expect(refusal(["--arms", "ce_review", "--ce-plugin-dir", "p", "--ce-plugin-version", bad])).toMatchObject({ flag: "--ce-plugin-version", message: expect.stringContaining("not an exact semantic version") });
      }
      expect(parseArgs(["--arms", "ce_review", "--ce-plugin-dir", "p", "--ce-plugin-version", "3.23.1-rc.1+build.5"], CONTEXT).ok).toBe(true);
    });

    it("refuses CE flags without a CE arm (they are required iff one runs)", () => {
      expect(refusal(["--arms", "review", ...CE])).toMatchObject({ flag: "--ce-plugin-dir", message: expect.stringContaining("only used by the ce_* arms") });
      expect(refusal([...CE])).toMatchObject({ flag: "--ce-plugin-dir" });
      expect(refusal(["--arms", "ce_review", "--ce-plugin-version", "3.23.1"])).toMatchObject({ flag: "--ce-plugin-dir" });
      // An overlay without --arms may add ce_review in front of its review pair: the sweep decides.
      expect(parseArgs(["--candidate-overlay", "o", ...CE], CONTEXT).ok).toBe(true);
    });
  });

  describe("--unsafe-no-bwrap (reference §6.8)", () => {
    const refusal = (argv: string[], context: Parameters<typeof parseArgs>[1] = CONTEXT) => {
      const parsed = parseArgs(argv, context);
      return parsed.ok ? null : parsed.error;
    };

    it("accepts review arms only, from the flag or UNSAFE_NO_BWRAP=1", () => {
      const flag = parseArgs(["--arms", "review", "--unsafe-no-bwrap"], CONTEXT);
      expect(flag.ok && flag.value.unsafeNoBwrap).toBe(true);
      const env = parseArgs(["--arms", "review"], { ...CONTEXT, unsafeNoBwrapEnv: "1" });
      expect(env.ok && env.value.unsafeNoBwrap).toBe(true);
      const off = parseArgs(["--arms", "review"], { ...CONTEXT, unsafeNoBwrapEnv: "0" });
      expect(off.ok && off.value.unsafeNoBwrap).toBe(false);
    });

    it("refuses any arm that is not a review arm, and the default arms", () => {
      expect(refusal(["--arms", "review", "workflow_direct", "--unsafe-no-bwrap"])).toMatchObject({ flag: "--unsafe-no-bwrap", message: expect.stringContaining("never workflow_direct") });
      expect(refusal(["--unsafe-no-bwrap"])).toMatchObject({ flag: "--unsafe-no-bwrap", message: expect.stringContaining("never workflow, workflow_direct, baseline") });
      expect(refusal(["--arms", "baseline"], { ...CONTEXT, unsafeNoBwrapEnv: "1" })).toMatchObject({ message: expect.stringContaining("UNSAFE_NO_BWRAP=1 runs review arms only") });
    });

    it("refuses it whenever CI is set", () => {
      for (const ci of ["true", "1", "yes"]) {
        expect(refusal(["--arms", "review", "--unsafe-no-bwrap"], { ...CONTEXT, ci })).toMatchObject({ flag: "--unsafe-no-bwrap", message: expect.stringContaining(`forbidden when CI is set (CI=${ci})`) });
      }
      expect(parseArgs(["--arms", "review", "--unsafe-no-bwrap"], { ...CONTEXT, ci: "" }).ok).toBe(true);
    });
  });

  it("accepts the review arm on its own (it runs on review tasks only)", () => {
    const parsed = parseArgs(["--arms", "review"], CONTEXT);
    expect(parsed.ok && parsed.value.arms).toEqual(["review"]);
  });

  it("defaults to the offline demo suite with every supported arm, 1 repeat, 1 worker, a timestamped out dir", () => {
    const result = parseArgs([], CONTEXT);
    expect(result.ok && result.value).toMatchObject({
      tasks: "/repo/tasks/demo.yaml",
      script: "/repo/tasks/demo/scripted-model.yaml",
      scriptExplicit: false,
      oracles: "/repo/oracles",
      arms: ["workflow", "workflow_direct", "baseline", "review"],
      repeats: 1,
      workers: 1,
      model: "claude-sonnet-4-5",
      effort: "xhigh",
      out: "/repo/runs/20260102T030405Z",
      help: false,
    });
  });

  it("reads space- and comma-separated arms, --runs as an alias, and resolves relative paths against cwd", () => {
    const result = parseArgs(["--arms", "baseline", "workflow_direct", "--runs", "3", "--out=out", "--tasks", "/abs/t.yaml", "--workers", "2"], CONTEXT);
    expect(result.ok && result.value).toMatchObject({ arms: ["baseline", "workflow_direct"], repeats: 3, out: "/repo/sub/out", tasks: "/abs/t.yaml", workers: 2 });
    const comma = parseArgs(["--arms=workflow_direct,baseline"], CONTEXT);
    expect(comma.ok && comma.value.arms).toEqual(["workflow_direct", "baseline"]);
  });

  it.each([
    [["--workers", "0"], "--workers", /between 1 and 8/],
    [["--workers", "9"], "--workers", /between 1 and 8/],
    [["--repeats", "two"], "--repeats", /whole number/],
    [["--repeats"], "--repeats", /needs a value/],
    [["--arms", "ce_review"], "--ce-plugin-dir", /needs --ce-plugin-dir <dir>/],
    [["--arms", "bogus"], "--arms", /unknown arm/],
    [["--arms", "baseline", "baseline"], "--arms", /twice/],
    [["--model", "claude-latest"], "--model", /pinned, versioned/],
    [["--model", " "], "--model", /blank/],
    [["--effort", "huge"], "--effort", /not one of/],
    [["--timeout", "-1"], "--timeout", /whole number/],
    [["--frobnicate"], "--frobnicate", /unknown argument/],
    [["--out", "a", "--out", "b"], "--out", /twice/],
    [["--arms", "workflow_direct", "candidate_workflow_direct"], "--arms", /need --candidate-overlay/],
    [["--candidate-overlay", "o", "--arms", "candidate_workflow_direct"], "--arms", /needs its incumbent workflow_direct/],
    [["--candidate-overlay", "o", "--arms", "workflow", "baseline"], "--candidate-overlay", /at least one candidate_\* arm/],
    [["--promotion-metric", "vibes"], "--promotion-metric", /not one of/],
    [["--promotion-min-runs", "0"], "--promotion-min-runs", /between 1 and 100/],
    [["--promotion-min-improvement", "-5"], "--promotion-min-improvement", /non-negative number/],
    [["--promotion-max-task-regression", "lots"], "--promotion-max-task-regression", /non-negative number/],
    [["--promotion-min-improvement", "9".repeat(400)], "--promotion-min-improvement", /at most 1000000 \(percent\), got 9{40}…/],
    [["--promotion-max-task-regression", "1000000.5"], "--promotion-max-task-regression", /at most 1000000/],
  ])("refuses %j naming the flag and the fix", (argv, flag, message) => {
    const result = parseArgs(argv, CONTEXT);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.flag).toBe(flag);
    expect(!result.ok && result.error.message).toMatch(message);
    expect(!result.ok && result.error.message).toContain(flag.startsWith("--") ? flag.replace(/=.*/u, "") : flag);
  });
});

describe("parseArgs candidate flags", () => {
  it("keeps the no-flag demo free of candidate arms and uses the reference's promotion defaults", () => {
    const result = parseArgs([], CONTEXT);
    expect(result.ok && result.value).toMatchObject({ candidateOverlay: null, armsExplicit: false, promotion: { metric: "cost_usd", minRuns: 3, minImprovementPct: 5, maxTaskRegressionPct: 20 } });
  });

  it("with an overlay and no --arms leaves the arm list to the overlay; explicit pairs and thresholds are kept", () => {
    const derived = parseArgs(["--candidate-overlay", "ov"], CONTEXT);
    expect(derived.ok && derived.value).toMatchObject({ candidateOverlay: "/repo/sub/ov", arms: [], armsExplicit: false });
    const explicit = parseArgs(["--candidate-overlay=/abs/ov", "--arms", "workflow_direct", "candidate_workflow_direct", "--promotion-metric", "output_tokens", "--promotion-min-runs", "5", "--promotion-min-improvement", "2.5", "--promotion-max-task-regression", "10"], CONTEXT);
    expect(explicit.ok && explicit.value).toMatchObject({
      candidateOverlay: "/abs/ov",
      arms: ["workflow_direct", "candidate_workflow_direct"],
      armsExplicit: true,
      promotion: { metric: "output_tokens", minRuns: 5, minImprovementPct: 2.5, maxTaskRegressionPct: 10 },
    });
  });
});

describe("checkModelName", () => {
  it.each([["provider/latest"], ["provider:Latest"], ["x@auto"], ["auto"]])("refuses the floating id %s", (model) => {
    expect(checkModelName(model)).not.toBeNull();
  });
  it.each([["free-coder"], ["claude-sonnet-4-5"], ["automaton-1"]])("accepts %s", (model) => {
    expect(checkModelName(model)).toBeNull();
  });
});

describe("parseArgs new flags and node:util refusals", () => {
  it("defaults the agreed fields and reads them when given", () => {
    const none = parseArgs([], CONTEXT);
    expect(none.ok && none.value).toMatchObject({ outageStreak: 5, claudeBin: null, proposerModel: null, openaiApiKey: null });
    const given = parseArgs(["--outage-streak", "2", "--claude-bin", "bin/claude", "--proposer-model=claude-opus-4-1", "--openai-api-key", "sk-x"], CONTEXT);
    expect(given.ok && given.value).toMatchObject({ outageStreak: 2, claudeBin: "/repo/sub/bin/claude", proposerModel: "claude-opus-4-1", openaiApiKey: "sk-x" });
  });

  it("takes -h as --help and keeps --arms lists apart from later flags", () => {
    const parsed = parseArgs(["-h", "--arms", "baseline", "workflow", "--repeats", "2"], CONTEXT);
    expect(parsed.ok && parsed.value).toMatchObject({ help: true, arms: ["baseline", "workflow"], repeats: 2 });
  });

  it.each([
    [["--outage-streak", "10001"], "--outage-streak", /between 0 and 10000/],
    [["--proposer-model", "gpt-latest"], "--proposer-model", /pinned, versioned/],
    [["--include-expensive=yes"], "--include-expensive", /takes no value/],
    [["--out", "--tasks", "t.yaml"], "--out", /starting with "-"/],
    [["stray"], "stray", /unexpected argument/],
    [["--tasks", "t.yaml", "extra"], "extra", /every value follows its flag/],
    [["--repeats", "2", "--runs", "3"], "--repeats", /twice/],
    [["-q"], "-q", /unknown argument/],
    [["--", "x"], "--", /no positional arguments/],
  ])("refuses %j naming the flag", (argv, flag, message) => {
    const result = parseArgs(argv, CONTEXT);
    expect(!result.ok && result.error.flag).toBe(flag);
    expect(!result.ok && result.error.message).toMatch(message);
  });
});

describe("parseArgs reuse, resume and evolve pins", () => {
  it("defaults to a fresh sweep without pins", () => {
    const result = parseArgs([], CONTEXT);
    expect(result.ok && result.value).toMatchObject({ reuseResults: null, resume: false, taskBindingsJson: null, promotionTargetBasesJson: null });
  });
  it("resolves --reuse-results and the hidden pin files against the working directory", () => {
    const result = parseArgs(["--reuse-results", "prev", "--task-bindings-json", "pins.json", "--promotion-target-bases-json", "/abs/bases.json"], CONTEXT);
    expect(result.ok && result.value).toMatchObject({ reuseResults: join(CONTEXT.cwd, "prev"), taskBindingsJson: join(CONTEXT.cwd, "pins.json"), promotionTargetBasesJson: "/abs/bases.json" });
  });
  it("--resume DIR makes DIR the output directory and refuses --out and --reuse-results beside it", () => {
    const result = parseArgs(["--resume", "runs/x"], CONTEXT);
    expect(result.ok && result.value).toMatchObject({ resume: true, out: join(CONTEXT.cwd, "runs/x") });
    const withOut = parseArgs(["--resume", "runs/x", "--out", "y"], CONTEXT);
    expect(!withOut.ok && withOut.error).toMatchObject({ flag: "--resume", message: expect.stringContaining("drop --out") });
    const withReuse = parseArgs(["--resume", "runs/x", "--reuse-results", "y"], CONTEXT);
    expect(!withReuse.ok && withReuse.error.flag).toBe("--resume");
  });
});
