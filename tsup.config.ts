// One build recipe for every package: run from a package root (`nx run <project>:build`), it reads that package's
// package.json `exports` so the entry points shipped are exactly the ones declared, and bundles nothing the package
// depends on (consumers install those themselves, so one copy of each @wfbench package exists at run time).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "tsup";

type ExportTarget = string | { [condition: string]: ExportTarget };
interface PackageJson {
  name: string;
  exports?: Record<string, ExportTarget>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const packageRoot = process.cwd();
const pkg = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as PackageJson;

/** Maps each `exports` subpath that has a `@wfbench/source` condition to a tsup entry named after its dist file. */
function entriesFromExports(manifest: PackageJson): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target === "string") continue; // "./package.json" and other plain files are shipped as they are
    const source = target["@wfbench/source"];
    const built = target["default"];
    if (typeof source !== "string" || typeof built !== "string") {
      throw new Error(
        `${manifest.name}: exports["${subpath}"] needs string "@wfbench/source" and "default" conditions ` +
          `(e.g. "./src/index.ts" and "./dist/index.js") to be built`,
      );
    }
    const name = built.replace(/^\.\/dist\//, "").replace(/\.js$/, "");
    if (name === built) {
      throw new Error(`${manifest.name}: exports["${subpath}"].default must be ./dist/<entry>.js, got ${built}`);
    }
    entries[name] = source;
  }
  if (Object.keys(entries).length === 0) throw new Error(`${manifest.name}: package.json declares no buildable exports`);
  return entries;
}

const dependencyNames = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
  ...Object.keys(pkg.optionalDependencies ?? {}),
];

export default defineConfig({
  entry: entriesFromExports(pkg),
  format: ["esm"],
  target: "node20",
  platform: "node",
  outDir: "dist",
  clean: true,
  sourcemap: true,
  // The lib tsconfig is a composite project for in-repo typechecking; tsup's declaration build is a plain program.
  // Without the source condition, sibling @wfbench packages resolve to their built .d.ts (nx builds them first via
  // ^build), so each package's declarations are checked against what a consumer will install.
  dts: { compilerOptions: { composite: false, incremental: false, declarationMap: false, customConditions: [] } },
  tsconfig: "tsconfig.lib.json",
  removeNodeProtocol: false, // keep "node:fs" as written: a bare "fs" could be shadowed by an installed package
  treeshake: false,
  // A dependency's subpaths (e.g. "@wfbench/sandbox-bwrap/unsafe") are external too.
  external: dependencyNames.map((name) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(/.*)?$`)),
});
