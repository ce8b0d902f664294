import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/browser/**", "test/runtimes/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
  },
});
