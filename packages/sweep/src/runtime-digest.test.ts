import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isSweepError } from "./errors.js";
import { collectRuntimeComponents, computeRuntimeDigest, digestPromptContracts, digestSandboxPolicy } from "./runtime-digest.js";

const dir = mkdtempSync(join(tmpdir(), "wfbench-runtime-digest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runtime digest", () => {
  it("is stable for the same harness and changes with every component", async () => {
    const cli = join(dir, "claude");
    writeFileSync(cli, "binary v1");
    const input = { claudePath: cli, claudeVersion: "2.1.0", script: { version: 1, trajectories: [] }, priceTableVersion: "prices@1" };
    const components = await collectRuntimeComponents(input);
    const digest = computeRuntimeDigest(components);
    expect(digest).toMatch(/^[0-9a-f]{64}$/u);
    expect(computeRuntimeDigest(await collectRuntimeComponents(input))).toBe(digest);
    expect(components).toMatchObject({ schema_version: 1, claude_cli_version: "2.1.0", row_schema_version: 1, price_table_version: "prices@1", sandbox_policy_digest: digestSandboxPolicy(), prompt_contract_digest: digestPromptContracts() });
    const variants = [
      { ...input, claudeVersion: "2.1.1" },
      { ...input, script: { version: 1, trajectories: [{ name: "x" }] } },
      { ...input, script: null },
      { ...input, priceTableVersion: "prices@2" },
    ];
    for (const variant of variants) expect(computeRuntimeDigest(await collectRuntimeComponents(variant))).not.toBe(digest);
    writeFileSync(cli, "binary v2");
    expect(computeRuntimeDigest(await collectRuntimeComponents(input))).not.toBe(digest);
    expect(computeRuntimeDigest({ ...components, sandbox_policy_digest: "0".repeat(64) })).not.toBe(digest);
    expect(computeRuntimeDigest({ ...components, prompt_contract_digest: "0".repeat(64) })).not.toBe(digest);
  });

  it("refuses a script with no canonical JSON (Infinity, which used to digest as null) as bad input naming --script", async () => {
    const cli = join(dir, "claude-nan");
    writeFileSync(cli, "binary");
    const input = { claudePath: cli, claudeVersion: "2.1.0", priceTableVersion: "prices@1" };
    const refused = await collectRuntimeComponents({ ...input, script: { version: 1, n: Number.POSITIVE_INFINITY } }).catch((error: unknown) => error);
    expect(isSweepError(refused)).toBe(true);
    expect(refused).toMatchObject({ code: "SWEEP_BAD_INPUT", message: expect.stringMatching(/^--script: .*Infinity at path \["n"\] is not a JSON number/u) as unknown });
  });
});
