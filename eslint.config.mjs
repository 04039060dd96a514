// One lint config for every project; Nx infers a `lint` target (`eslint .` in the project root) from it.
// The rules are deliberately modest (recommended sets), except the package map, which is strict: see ARCHITECTURE.md.
import js from "@eslint/js";
import nx from "@nx/eslint-plugin";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Files that only tests, benchmarks and test configs load; they never ship. */
export const TEST_FILES = ["**/*.test.ts", "**/test/**/*.ts", "**/bench/**/*.ts", "**/vitest.config.ts"];

const OURS = ["type:core", "type:boundary", "type:leaf"];

/**
 * The allowed arrows between Nx project tags (ARCHITECTURE.md). A tag missing from a target fails the import, so a
 * new package must be tagged before anything may import it.
 * - apps compose everything but other apps; nothing imports an app;
 * - core packages compose boundaries and each other;
 * - boundaries import only boundaries and leaves, never a composition (core) package;
 * - leaves import no @wfbench package at all, and anyone may import them.
 */
export const PRODUCTION_CONSTRAINTS = [
  { sourceTag: "type:app", onlyDependOnLibsWithTags: OURS },
  { sourceTag: "type:core", onlyDependOnLibsWithTags: OURS },
  { sourceTag: "type:boundary", onlyDependOnLibsWithTags: ["type:boundary", "type:leaf"] },
  { sourceTag: "type:leaf", onlyDependOnLibsWithTags: [] },
  { sourceTag: "type:tool", onlyDependOnLibsWithTags: OURS },
];

/**
 * Tests may in addition drive the real CLI and the scripted model (`e2e:driver`): a sandbox or gateway test that
 * runs a real session needs both, while the boundary's own code must never reach them.
 */
export const TEST_CONSTRAINTS = PRODUCTION_CONSTRAINTS.map((constraint) =>
  constraint.sourceTag === "type:boundary" ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, "e2e:driver"] } : constraint,
);

const boundaries = (depConstraints) => ["error", { allow: [], depConstraints, enforceBuildableLibDependency: false, banTransitiveDependencies: true }];

export default defineConfig(
  globalIgnores(["**/node_modules/", "**/dist/", "**/out-tsc/", "**/test-results/", "**/.nx/", "**/coverage/", "runs/", "tmp/"]),
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  {
    files: ["**/*.ts", "**/*.mjs", "**/*.js"],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: globals.node,
    },
    plugins: { "@nx": nx },
    rules: {
      "@nx/enforce-module-boundaries": boundaries(PRODUCTION_CONSTRAINTS),
      // Python's whitespace set (\x1c-\x1f) and NUL handling are written as regex classes on purpose.
      "no-control-regex": "off",
      // Unused names are already a compile error (noUnusedLocals/noUnusedParameters); `_`-prefixed ones are intended.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    files: TEST_FILES,
    rules: { "@nx/enforce-module-boundaries": boundaries(TEST_CONSTRAINTS) },
  },
);
