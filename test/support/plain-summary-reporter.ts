import { mkdirSync, writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

/** How many of the slowest test files the summary names: where the suite's time goes. */
const SLOWEST_SHOWN = 12;

/**
 * Ends the run with the slowest test files (tests and hooks, per project) and the plain closing
 * line CI reads in any language: `Tests: N passed, N failed` (`, N skipped` when any were).
 * Every file's times go to `.tmp/test-durations.json` (project, file, ms running and collecting),
 * for finding where a slow suite spends them.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (module.state() === "failed" && !module.ok()) failed += module.children.size === 0 ? 1 : 0;
    }
    const slowest = [...testModules]
      .sort((a, b) => b.diagnostic().duration - a.diagnostic().duration)
      .slice(0, SLOWEST_SHOWN)
      .map(
        (m) => `  ${(m.diagnostic().duration / 1000).toFixed(1)} s  ${m.project.name}  ${m.relativeModuleId}`,
      );
    mkdirSync(".tmp", { recursive: true });
    writeFileSync(
      ".tmp/test-durations.json",
      `${JSON.stringify(
        testModules.map((m) => ({
          project: m.project.name,
          file: m.relativeModuleId,
          ms: Math.round(m.diagnostic().duration),
          collectMs: Math.round(m.diagnostic().collectDuration),
        })),
        null,
        1,
      )}\n`,
    );
    process.stdout.write(`\nSlowest test files:\n${slowest.join("\n")}\n`);
    const extra = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed${extra}\n`);
  }
}
