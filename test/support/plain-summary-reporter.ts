import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends the run with the plain closing line CI reads in any language: `Tests: N passed, N failed`
 * (`, N skipped` when any were).
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
    const extra = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed${extra}\n`);
  }
}
