import { defineConfig } from "vitest/config";

/** The headless-browser tests (`npm run test:browser`): Debian's chromium via playwright-core. */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One temporary folder per run, removed when it ends (test/helpers/tempRoot.ts).
    globalSetup: ["test/helpers/tempRoot.ts"],
  },
});
