import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/browser/**", "test/runtimes/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // One temporary folder per run, removed when it ends (test/helpers/tempRoot.ts).
    globalSetup: ["test/helpers/tempRoot.ts"],
    // Vitest leaves a core free by default: one worker on a 2-core machine. Most of the suite
    // waits on child processes and sockets, so two workers there take 3.7 min instead of 5.6.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
