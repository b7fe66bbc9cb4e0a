import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // End-to-end tests run real processes and sockets on a shared 2-core machine; in CI a test
    // gets one more try so a scheduling hiccup does not fail the run. Failing twice still fails.
    retry: process.env.CI ? 1 : 0,
    reporters: ["default", "./test/support/plain-summary-reporter.ts"],
  },
});
