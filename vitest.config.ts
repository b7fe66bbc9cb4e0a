import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * The end-to-end suite — every test that drives the whole bot through the harnesses — and the
 * crash-and-restart test: the `postgres` project runs them again with the bot on PostgreSQL
 * (test/support/bot-harness.ts, storageUrlOf). Tests of SQLite itself (a locked or full file,
 * its permissions) stay in the default project only.
 */
const WHOLE_BOT_STORAGE_TESTS = ["test/**/*.e2e.test.ts", "test/faults/turns.test.ts"];

/**
 * Scenes of two instance processes whose bound is a wall-clock one (every trigger answered within
 * 15 s through a Redis or PostgreSQL restart, a SIGKILL, a SIGSTOP; a recall reaching the
 * instance that does not own the chat): `npm test` runs them after
 * the rest, on their own, so the bound measures the cluster and not the other test files
 * competing for the same two cores.
 */
const CLUSTER_FAULT_SCENES = ["test/cluster/fencing.test.ts", "test/cluster/recalls.test.ts"];

/**
 * Test files that may run at once in the default and postgres projects. Much of their time is
 * spent waiting on sockets, child processes and timers, which vitest's own default on two cores
 * (cores - 1: one file after another) leaves unused. Three at once was measured 29 % faster but
 * doubled each test's time and pushed tests that start several processes past their timeouts;
 * two is the compromise. On a machine whose cores are taken by other work the files only
 * compete: `VITEST_MAX_WORKERS=1` runs them one by one.
 */
const PARALLEL_FILES = 2;

/**
 * The default and postgres projects run their files in long-lived workers that share one module
 * graph (`isolate: false`): a file importing the whole bot paid 1–3 s of import each time, 388 s
 * summed over a run — 922 s for both projects isolated, 536 s shared, every test passing either
 * way. No test file may replace a module, a global or an environment variable, which would leak
 * into the files after it (test/architecture/shared-test-workers.test.ts); a file that needs a
 * fresh module graph goes to a project of its own.
 */
const ISOLATE_FILES = false;

/**
 * Vitest runs projects with different worker counts one group after another: a plain `vitest run`
 * takes the cluster's scenes first, on their own, and the parallel projects after them.
 */
const PARALLEL_GROUP = { groupOrder: 1 };

/** What every project runs with. */
const shared: TestProjectInlineConfiguration["test"] = {
  testTimeout: 20_000,
  hookTimeout: 20_000,
  pool: "forks",
  // Plugin code is imported by Node itself, through the bot's loader hooks (tsumugi/sdk,
  // TypeScript transpiled on load), as in production; Vite must not transform it instead.
  server: { deps: { external: [/[?&]tsumugi-plugin=/] } },
  // End-to-end tests run real processes and sockets on a shared 2-core machine; in CI a test
  // gets one more try so a scheduling hiccup does not fail the run. Failing twice still fails.
  retry: process.env.CI ? 1 : 0,
};

export default defineConfig({
  test: {
    // One throwaway PostgreSQL and Redis server for the run (freshPostgresUrl, freshRedis). Set
    // here, not in the projects: the root's globalSetup runs once and every project sees it.
    globalSetup: ["./test/support/global-servers.ts"],
    reporters: ["default", "./test/support/plain-summary-reporter.ts"],
    // Transformed source kept on disk: the postgres project and later runs reuse what the
    // default project transformed instead of transforming every file again.
    experimental: { fsModuleCache: true, fsModuleCachePath: ".tmp/vitest-module-cache" },
    projects: [
      {
        test: {
          ...shared,
          name: "default",
          include: ["test/**/*.test.ts"],
          exclude: CLUSTER_FAULT_SCENES,
          maxWorkers: PARALLEL_FILES,
          isolate: ISOLATE_FILES,
          sequence: PARALLEL_GROUP,
        },
      },
      // Each scene should pass on its first run, its 15 s bound measured on its own (18 of 18 first
      // tries after the Redis-restarts-empty scene's defect was found: a taker that had not yet seen
      // the dead instance join forgot it). In CI two more tries stay, for a machine's hiccup.
      {
        test: {
          ...shared,
          name: "cluster-faults",
          include: CLUSTER_FAULT_SCENES,
          retry: process.env.CI ? 2 : 0,
        },
      },
      {
        test: {
          ...shared,
          name: "postgres",
          include: WHOLE_BOT_STORAGE_TESTS,
          // The cluster's tests run on PostgreSQL already.
          exclude: ["test/cluster/**"],
          env: { TSUMUGI_TEST_STORAGE: "postgres" },
          maxWorkers: PARALLEL_FILES,
          isolate: ISOLATE_FILES,
          sequence: PARALLEL_GROUP,
        },
      },
    ],
  },
});
