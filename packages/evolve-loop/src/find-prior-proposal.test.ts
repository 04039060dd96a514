import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findGenerationProposal, findSeedProposal } from "./find-prior-proposal.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** An earlier generation's directory: `bench/` (the seed) and, as asked, its proposals. */
function generation(files: Record<string, number>): { gen: string; seed: string } {
  const gen = mkdtempSync(join(tmpdir(), "prior-proposal-"));
  roots.push(gen);
  mkdirSync(join(gen, "bench"));
  for (const [rel, mode] of Object.entries(files)) {
    mkdirSync(join(gen, rel, ".."), { recursive: true });
    writeFileSync(join(gen, rel), "# proposal\n");
    chmodSync(join(gen, rel), mode);
  }
  return { gen, seed: join(gen, "bench") };
}

describe("findSeedProposal / findGenerationProposal", () => {
  it("finds this loop's proposer/proposal.md beside the seed results first, then the original's proposal.md", () => {
    const both = generation({ "proposer/proposal.md": 0o600, "proposal.md": 0o600 });
    expect(findSeedProposal(both.seed)).toBe(join(both.gen, "proposer/proposal.md"));
    expect(findGenerationProposal(both.gen)).toBe(join(both.gen, "proposer/proposal.md"));
    const original = generation({ "proposal.md": 0o400 });
    expect(findSeedProposal(original.seed)).toBe(join(original.gen, "proposal.md"));
  });

  it("hands on nothing when there is no proposal, or it is not an owner-only regular file", () => {
    expect(findSeedProposal(generation({}).seed)).toBeNull();
    const shared = generation({ "proposer/proposal.md": 0o644, "proposal.md": 0o640 });
    expect(findSeedProposal(shared.seed)).toBeNull();
    expect(findGenerationProposal(shared.gen)).toBeNull();
    const linked = generation({ "host.md": 0o600 });
    mkdirSync(join(linked.gen, "proposer"));
    symlinkSync(join(linked.gen, "host.md"), join(linked.gen, "proposer/proposal.md"));
    expect(findSeedProposal(linked.seed)).toBeNull();
    const directory = generation({});
    mkdirSync(join(directory.gen, "proposal.md"), { mode: 0o700 });
    expect(findSeedProposal(directory.seed)).toBeNull();
  });
});
