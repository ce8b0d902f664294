import { defineConfig } from "vitest/config";

// `npm run test:runtimes`: the built package served from Bun, Deno and workerd (test/runtimes/).
export default defineConfig({
  test: {
    include: ["test/runtimes/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One temporary folder per run, removed when it ends (test/helpers/tempRoot.ts).
    globalSetup: ["test/helpers/tempRoot.ts"],
    // One runtime at a time: each is a whole server process on a 2-core machine.
    fileParallelism: false,
  },
});
