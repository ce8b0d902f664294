import { defineConfig } from "vitest/config";

// Runs bench/source/*.measure.ts: measurements that need the fake node (TypeScript, under
// test/), so they go through vitest's transform rather than the dist-based bench runner.
export default defineConfig({
  test: { include: ["bench/source/**/*.measure.ts"], testTimeout: 900_000, pool: "forks" },
});
