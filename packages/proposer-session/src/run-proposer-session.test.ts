import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROPOSER_OUTPUT_DIR } from "./build-proposer-prompt.js";
import { MAX_PROPOSAL_BYTES, readProposal } from "./run-proposer-session.js";

describe("readProposal", () => {
  let root: string;
  let clone: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "wfbench-proposal-test-"));
    clone = join(root, "clone");
    mkdirSync(clone);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("reads the clone's own regular proposal.md", async () => {
    mkdirSync(join(clone, PROPOSER_OUTPUT_DIR));
    writeFileSync(join(clone, PROPOSER_OUTPUT_DIR, "proposal.md"), "# pattern\n");
    expect(Buffer.from((await readProposal(clone)) as Buffer).toString("utf8")).toBe("# pattern\n");
  });

  it("refuses an output directory the proposer replaced with a link to a host directory, never reading through it", async () => {
    const host = join(root, "host-dir");
    mkdirSync(host);
    writeFileSync(join(host, "proposal.md"), "HOST-ONLY BYTES\n");
    symlinkSync(host, join(clone, PROPOSER_OUTPUT_DIR));
    const read = await readProposal(clone);
    expect(typeof read).toBe("string");
    expect(read).toMatch(/link/u);
  });

  it("refuses a linked proposal.md, a FIFO-like non-file and an oversized file", async () => {
    mkdirSync(join(clone, PROPOSER_OUTPUT_DIR));
    writeFileSync(join(root, "elsewhere.md"), "x");
    symlinkSync(join(root, "elsewhere.md"), join(clone, PROPOSER_OUTPUT_DIR, "proposal.md"));
    expect(await readProposal(clone)).toMatch(/link|not a regular file/u);
    rmSync(join(clone, PROPOSER_OUTPUT_DIR, "proposal.md"));
    mkdirSync(join(clone, PROPOSER_OUTPUT_DIR, "proposal.md"));
    expect(await readProposal(clone)).toMatch(/not a regular file/u);
    rmSync(join(clone, PROPOSER_OUTPUT_DIR, "proposal.md"), { recursive: true });
    writeFileSync(join(clone, PROPOSER_OUTPUT_DIR, "proposal.md"), "p".repeat(MAX_PROPOSAL_BYTES + 1));
    expect(await readProposal(clone)).toMatch(/at most/u);
    rmSync(join(clone, PROPOSER_OUTPUT_DIR, "proposal.md"));
    expect(await readProposal(clone)).toMatch(/wrote no/u);
  });
});
