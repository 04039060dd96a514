// The package map (ARCHITECTURE.md) is enforced by `@nx/enforce-module-boundaries` through the root ESLint config.
// These tests lint probe imports as if they were files inside real projects (ESLint's lintText with a filePath: no
// file is written to the tree) and expect the rule to refuse every forbidden arrow. If the rule were skipped (no
// project graph) or mis-configured, the refusals below would come back empty and the tests fail.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint, type Linter } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const RULE = "@nx/enforce-module-boundaries";
const eslint = new ESLint({ cwd: ROOT });

interface BoundaryConstraint {
  readonly sourceTag: string;
  readonly onlyDependOnLibsWithTags: readonly string[];
}

/** The boundary rule's messages for `code` linted as the file `file` (relative to the repository root). */
async function boundaryMessages(file: string, code: string, engine: ESLint = eslint): Promise<string[]> {
  const results = await engine.lintText(code, { filePath: join(ROOT, file) });
  const messages = results.flatMap((result) => result.messages);
  const fatal = messages.filter((message) => message.fatal === true);
  if (fatal.length > 0) throw new Error(`the probe did not parse: ${fatal.map((m) => m.message).join("; ")}`);
  return messages.filter((message) => message.ruleId === RULE).map((message) => message.message);
}

async function constraintsFor(file: string): Promise<BoundaryConstraint[]> {
  const config = (await eslint.calculateConfigForFile(join(ROOT, file))) as Linter.Config;
  const entry = config.rules?.[RULE];
  if (!Array.isArray(entry)) throw new Error(`${RULE} is not configured for ${file}`);
  const options = entry[1] as { depConstraints: BoundaryConstraint[] };
  return options.depConstraints;
}

function readProjects(): { dir: string; name: string; tags: string[] }[] {
  return ["packages", "apps", "tools"].flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, group, entry.name, "package.json")))
      .map((entry) => {
        const manifest = JSON.parse(readFileSync(join(ROOT, group, entry.name, "package.json"), "utf8")) as { nx?: { name?: string; tags?: string[] } };
        return { dir: `${group}/${entry.name}`, name: manifest.nx?.name ?? entry.name, tags: manifest.nx?.tags ?? [] };
      }),
  );
}

describe("the package map", () => {
  it("tags every project with exactly one type, so nothing untagged can be imported", () => {
    const projects = readProjects();
    expect(projects.length).toBeGreaterThanOrEqual(15);
    for (const project of projects) {
      const types = project.tags.filter((tag) => tag.startsWith("type:"));
      expect(types, project.dir).toHaveLength(1);
      if (project.dir.startsWith("apps/")) expect(types, project.dir).toEqual(["type:app"]);
    }
  });

  it("lets no leaf import any @wfbench package, and boundaries only boundaries and leaves", async () => {
    const production = await constraintsFor("packages/claude-cli/src/index.ts");
    expect(production).toContainEqual({ sourceTag: "type:leaf", onlyDependOnLibsWithTags: [] });
    expect(production).toContainEqual({ sourceTag: "type:boundary", onlyDependOnLibsWithTags: ["type:boundary", "type:leaf"] });
    for (const constraint of production) expect(constraint.onlyDependOnLibsWithTags, constraint.sourceTag).not.toContain("type:app");
    const tests = await constraintsFor("packages/sandbox-bwrap/test/claude-session.int.test.ts");
    expect(tests).toContainEqual({ sourceTag: "type:boundary", onlyDependOnLibsWithTags: ["type:boundary", "type:leaf", "e2e:driver"] });
  });
});

describe("@nx/enforce-module-boundaries", () => {
  it("accepts the arrows the map allows (control for the refusals below)", async () => {
    expect(await boundaryMessages("packages/cell-pipeline/src/probe.ts", 'export { runSandboxed } from "@wfbench/sandbox-bwrap";\n')).toEqual([]);
    expect(await boundaryMessages("packages/clone-sanitizer/src/probe.ts", 'export { runSandboxed } from "@wfbench/sandbox-bwrap";\n')).toEqual([]);
    expect(await boundaryMessages("apps/runner/src/probe.ts", 'export { runCell } from "@wfbench/cell-pipeline";\n')).toEqual([]);
  });

  it("refuses a boundary importing a core package", async () => {
    const messages = await boundaryMessages("packages/review-scoring/src/probe.ts", 'export { loadTaskSuite } from "@wfbench/task-suite";\n');
    expect(messages).toEqual([expect.stringMatching(/tagged with "type:boundary" can only depend on libs tagged with "type:boundary", "type:leaf"/u)]);
  });

  it("refuses boundary code reaching the CLI or the scripted model, but lets its tests drive them", async () => {
    const code = 'export { startScriptedModel } from "@wfbench/scripted-model";\nexport { resolveClaudeCli } from "@wfbench/claude-cli";\n';
    expect(await boundaryMessages("packages/sandbox-bwrap/src/probe.ts", code)).toHaveLength(2);
    expect(await boundaryMessages("packages/litellm-gateway/src/probe.ts", code)).toHaveLength(2);
    expect(await boundaryMessages("packages/sandbox-bwrap/test/probe.int.test.ts", code)).toEqual([]);
  });

  it("refuses any package or app importing an app", async () => {
    // The evolve app reaches task-suite through evolve-loop, so importing the app back is also a cycle.
    expect(await boundaryMessages("packages/task-suite/src/probe.ts", 'export { x } from "@wfbench/evolve";\n')).toEqual([expect.stringMatching(/Imports of apps are forbidden|Circular dependency between "task-suite" and "evolve"/u)]);
    expect(await boundaryMessages("apps/runner/src/probe.ts", 'export { x } from "@wfbench/evolve";\n')).toEqual([expect.stringMatching(/Imports of apps are forbidden/u)]);
    // Every package is a dependency of the runner, so importing it back is also a cycle.
    expect(await boundaryMessages("packages/review-scoring/src/probe.ts", 'export { x } from "@wfbench/runner";\n')).toEqual([expect.stringMatching(/Circular dependency between "review-scoring" and "runner"/u)]);
    // The sweep is core composition: it may not reach back into the app that drives it.
    expect(await boundaryMessages("packages/sweep/src/probe.ts", 'export { parseArgs } from "@wfbench/runner";\n')).toEqual([expect.stringMatching(/Imports of apps are forbidden|Circular dependency between "sweep" and "runner"/u)]);
  });

  it("lets the sweep (core) compose boundaries, and refuses a boundary importing the sweep", async () => {
    expect(await boundaryMessages("packages/sweep/src/probe.ts", 'export { startGateway } from "@wfbench/litellm-gateway";\n')).toEqual([]);
    expect(await boundaryMessages("packages/oracle-snapshot/src/probe.ts", 'export { runSweep } from "@wfbench/sweep";\n')).not.toEqual([]);
  });

  it("refuses a cycle even between tags that may import each other", async () => {
    // clone-sanitizer imports sandbox-bwrap (boundary to boundary is allowed); the way back closes a loop.
    const messages = await boundaryMessages("packages/sandbox-bwrap/src/probe.ts", 'export { materializeCell } from "@wfbench/clone-sanitizer";\n');
    expect(messages).toEqual([expect.stringMatching(/Circular dependency between "sandbox-bwrap" and "clone-sanitizer" detected: sandbox-bwrap -> clone-sanitizer -> sandbox-bwrap/u)]);
  });

  it("refuses reaching into another project by path, or an npm package the project does not declare", async () => {
    expect(await boundaryMessages("packages/review-scoring/src/probe.ts", 'export { x } from "../../task-suite/src/index.js";\n')).toEqual([expect.stringMatching(/relative or absolute path/u)]);
    expect(await boundaryMessages("packages/review-scoring/src/probe.ts", 'export { parse } from "yaml";\n')).toEqual([expect.stringMatching(/Only packages defined in the "package.json" can be imported/u)]);
  });

  it("gives the leaf rule's empty list its meaning: a project under it may import no @wfbench package", async () => {
    // The exact leaf constraint applied to another real project's tag, then to every leaf itself.
    const leafShaped = new ESLint({
      cwd: ROOT,
      overrideConfig: { rules: { [RULE]: ["error", { depConstraints: [{ sourceTag: "e2e:driver", onlyDependOnLibsWithTags: [] }] }] } },
    });
    const messages = await boundaryMessages("packages/scripted-model/src/probe.ts", 'export { resolveClaudeCli } from "@wfbench/claude-cli";\n', leafShaped);
    expect(messages).toEqual([expect.stringMatching(/tagged with "e2e:driver" cannot depend on any libs with tags/u)]);
    for (const leaf of readProjects().filter((project) => project.tags.includes("type:leaf"))) {
      expect(await boundaryMessages(`${leaf.dir}/src/probe.ts`, 'export { resolveClaudeCli } from "@wfbench/claude-cli";\n'), leaf.dir).toHaveLength(1);
    }
  });
});
