/**
 * The eval's report: a progress line per scenario, the table (one row per scenario; with
 * several configs a column per config, side by side) with totals, and the JSON document.
 */
import type { ScenarioResult } from "./checks.ts";

export interface EvalReport {
  configs: string[];
  scenarios: ScenarioResult[];
  passed: number;
  failed: number;
}

export function evalReport(configs: string[], scenarios: ScenarioResult[]): EvalReport {
  const passed = scenarios.filter((result) => result.passed).length;
  return { configs, scenarios, passed, failed: scenarios.length - passed };
}

export function progressLine(result: ScenarioResult, done: number, total: number): string {
  const outcome = result.passed ? "passed" : `FAILED: ${result.failures.join("; ")}`;
  return `[${done}/${total}] ${result.config} · ${result.name}: ${outcome} (${figures(result)})`;
}

export function reportTable(report: EvalReport): string {
  const names = [...new Set(report.scenarios.map((result) => result.name))];
  const resultOf = (name: string, config: string) =>
    report.scenarios.find((result) => result.name === name && result.config === config);
  if (report.configs.length === 1) {
    const config = report.configs[0] ?? "";
    const header = ["scenario", "result", "msgs", "calls", "tokens", "first msg", "why"];
    const rows = names.flatMap((name) => {
      const result = resultOf(name, config);
      if (!result) return [];
      return [
        [
          name,
          result.passed ? "passed" : "FAILED",
          String(result.botMessages),
          String(result.modelCalls),
          String(result.tokens),
          latency(result),
          whyFailed(result),
        ],
      ];
    });
    return [table(header, rows), totalsLine(config, report.scenarios)].join("\n");
  }
  const header = ["scenario", ...report.configs];
  const rows = names.map((name) => [
    name,
    ...report.configs.map((config) => {
      const result = resultOf(name, config);
      return result ? `${result.passed ? "✓" : "✗"} ${figures(result)}` : "-";
    }),
  ]);
  const failed = report.scenarios
    .filter((result) => !result.passed)
    .map((result) => `  ${result.name} [${result.config}]: ${result.failures.join("; ")}`);
  return [
    table(header, rows),
    ...(failed.length > 0 ? ["failures:", ...failed] : []),
    ...report.configs.map((config) =>
      totalsLine(
        config,
        report.scenarios.filter((result) => result.config === config),
      ),
    ),
  ].join("\n");
}

function totalsLine(config: string, results: ScenarioResult[]): string {
  const sum = (pick: (result: ScenarioResult) => number) =>
    results.reduce((total, result) => total + pick(result), 0);
  const passed = results.filter((result) => result.passed).length;
  return (
    `total ${config}: ${passed} passed, ${results.length - passed} failed · ${sum((r) => r.botMessages)} bot messages · ` +
    `${sum((r) => r.modelCalls)} model calls · ${sum((r) => r.tokens)} tokens`
  );
}

function figures(result: ScenarioResult): string {
  return `${result.botMessages} msg · ${result.modelCalls} calls · ${result.tokens} tok · ${latency(result)}`;
}

function latency(result: ScenarioResult): string {
  return result.latencyMs === null ? "-" : `${(result.latencyMs / 1000).toFixed(1)} s`;
}

function whyFailed(result: ScenarioResult): string {
  const [first, ...more] = result.failures;
  if (first === undefined) return "";
  return more.length > 0 ? `${first} (+${more.length} more)` : first;
}

/** Columns padded to their widest cell, counting a CJK character as two columns. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(width(cell), ...rows.map((row) => width(row[column] ?? ""))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell + " ".repeat((widths[column] ?? 0) - width(cell)),
      )
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((size) => "-".repeat(size))), ...rows.map(line)].join("\n");
}

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

function width(text: string): number {
  let size = 0;
  for (const char of text) size += WIDE.test(char) ? 2 : 1;
  return size;
}
