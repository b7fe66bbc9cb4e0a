import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Plugin code is imported by Node itself, through the bot's loader hooks (tsumugi/sdk,
    // TypeScript transpiled on load), as in production; Vite must not transform it instead.
    server: { deps: { external: [/[?&]tsumugi-plugin=/] } },
    // End-to-end tests run real processes and sockets on a shared 2-core machine; in CI a test
    // gets one more try so a scheduling hiccup does not fail the run. Failing twice still fails.
    retry: process.env.CI ? 1 : 0,
    reporters: ["default", "./test/support/plain-summary-reporter.ts"],
  },
});
