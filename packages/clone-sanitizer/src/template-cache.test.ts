import { describe, expect, it } from "vitest";
import { digestJson, sha256Hex } from "@wfbench/digest";
import { SANITIZER_VERSION } from "./prepare-template.js";
import { computeTemplateKey } from "./template-cache.js";

const base = {
  repo: "/repos/GitNexus",
  sha: "a".repeat(40),
  hiddenPaths: ["eval/workflow_bench", "labels.json"],
  neutralize: [
    { path: ".gitnexusrc", content: "{}\n" },
    { path: ".gitnexusignore", content: "" },
  ],
};

describe("computeTemplateKey", () => {
  it("digests repo identity, resolved sha, sorted declarations and the sanitizer version", () => {
    expect(computeTemplateKey(base)).toBe(
      digestJson({
        repo_identity: base.repo,
        resolved_sha: base.sha,
        hidden_paths: ["eval/workflow_bench", "labels.json"],
        neutralize: [
          { path: ".gitnexusignore", sha256: sha256Hex("") },
          { path: ".gitnexusrc", sha256: sha256Hex("{}\n") },
        ],
        sanitizer_version: SANITIZER_VERSION,
      }),
    );
  });

  it("ignores declaration order but changes with every keyed input", () => {
    const key = computeTemplateKey(base);
    expect(computeTemplateKey({ ...base, hiddenPaths: [...base.hiddenPaths].reverse(), neutralize: [...base.neutralize].reverse() })).toBe(key);
    const variants = [
      { ...base, repo: "/repos/other" },
      { ...base, sha: "b".repeat(40) },
      { ...base, hiddenPaths: ["eval/workflow_bench"] },
      { ...base, neutralize: [{ path: ".gitnexusrc", content: "{\"x\":1}\n" }, { path: ".gitnexusignore", content: "" }] },
      { ...base, neutralize: [] },
    ];
    const keys = new Set(variants.map((v) => computeTemplateKey(v)));
    expect(keys.size).toBe(variants.length);
    expect(keys.has(key)).toBe(false);
  });
});
