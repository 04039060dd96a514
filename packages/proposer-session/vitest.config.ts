import { defineConfig } from "vitest/config";
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
