// One-off scaffolder kept for adding projects later: writes the shared per-project files
// (package.json, tsconfigs, vitest config) so every project has the same shape.
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const [kind, dir, ...deps] = process.argv.slice(2);
if (!kind || !dir || !["packages", "apps"].includes(kind)) {
  console.error("usage: node tools/scaffold-project.mjs packages|apps <dir> [dep...]");
  process.exit(2);
}
const root = join(kind, dir);
mkdirSync(join(root, "src"), { recursive: true });
mkdirSync(join(root, "test"), { recursive: true });
const write = (file, text) => {
  const path = join(root, file);
  if (!existsSync(path)) writeFileSync(path, text);
};
const dependencies = Object.fromEntries(deps.map((d) => [d, d.startsWith("@wfbench/") ? "*" : "PIN"]));
// A first guess at the project's place in the map (ARCHITECTURE.md): lint then holds it to that tag's arrows.
const tag = kind === "apps" ? "type:app" : deps.some((d) => d.startsWith("@wfbench/")) ? "type:core" : "type:leaf";
write(
  "package.json",
  JSON.stringify(
    {
      name: `@wfbench/${dir}`,
      version: "0.0.0",
      private: true,
      type: "module",
      sideEffects: false,
      engines: { node: ">=20.19" },
      files: ["dist", "!**/*.tsbuildinfo"],
      exports: {
        ".": { "@wfbench/source": "./src/index.ts", types: "./dist/index.d.ts", default: "./dist/index.js" },
        "./package.json": "./package.json",
      },
      nx: { name: dir, tags: [tag] },
      dependencies,
    },
    null,
    2,
  ) + "\n",
);
write("tsconfig.json", JSON.stringify({ extends: "../../tsconfig.base.json", files: [], include: [], references: [{ path: "./tsconfig.lib.json" }, { path: "./tsconfig.spec.json" }] }, null, 2) + "\n");
write(
  "tsconfig.lib.json",
  JSON.stringify(
    {
      extends: "../../tsconfig.base.json",
      compilerOptions: { rootDir: "src", outDir: "out-tsc/lib", tsBuildInfoFile: "out-tsc/lib/tsconfig.lib.tsbuildinfo" },
      include: ["src/**/*.ts"],
      exclude: ["src/**/*.test.ts", "src/**/*.test-d.ts"],
      references: [],
    },
    null,
    2,
  ) + "\n",
);
write(
  "tsconfig.spec.json",
  JSON.stringify(
    {
      extends: "../../tsconfig.base.json",
      compilerOptions: { outDir: "out-tsc/spec", tsBuildInfoFile: "out-tsc/spec/tsconfig.spec.tsbuildinfo", types: ["node", "vitest/globals"] },
      include: ["src/**/*.ts", "test/**/*.ts", "vitest.config.ts"],
      references: [{ path: "./tsconfig.lib.json" }],
    },
    null,
    2,
  ) + "\n",
);
write(
  "vitest.config.ts",
  `import { defineConfig } from "vitest/config";
import { defaultServerConditions } from "vite";

// Tests import sibling packages from source: the custom condition must reach Vitest's SSR resolver.
export default defineConfig({
  ssr: { resolve: { conditions: ["@wfbench/source", ...defaultServerConditions] } },
  resolve: { conditions: ["@wfbench/source"] },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    restoreMocks: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
`,
);
console.log(`scaffolded ${root}`);
