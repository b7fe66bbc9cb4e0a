import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";

/** Starts a bench helper script (TypeScript, through tsx) as its own process, with these node flags. */
export function spawnScript(script: string, argument: unknown, nodeFlags: string[] = []): ChildProcess {
  const path = fileURLToPath(new URL(script, import.meta.url));
  return spawn(process.execPath, [...nodeFlags, "--import", "tsx", path, JSON.stringify(argument)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Resolves with the child's next stdout line parsed as JSON. */
export function nextLine(child: ChildProcess): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf("\n");
      if (newline === -1) return;
      child.stdout?.off("data", onData);
      child.off("close", onClose);
      resolve(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
    };
    // "close", not "exit": a helper that prints and exits at once may exit before its output is read.
    const onClose = (code: number | null) => reject(new Error(`bench helper exited with ${code}`));
    child.stdout?.on("data", onData);
    child.once("close", onClose);
  });
}

/** The machine's 1, 5 and 15 minute load averages, rounded: printed beside every figure of a shared machine. */
export function loadAverages(): number[] {
  return loadavg().map((load) => round(load, 2));
}

/**
 * `rounds` rounds of every side in turn (a, b, c, a, b, c, …), so a change in the machine's load
 * hits every side alike and ratios within a round stay meaningful; with the load averages at the
 * start and end of the whole run.
 */
export async function interleaved<T>(
  rounds: number,
  sides: Record<string, () => Promise<T>>,
): Promise<{ rounds: Record<string, T>[]; loadAverage: { before: number[]; after: number[] } }> {
  const before = loadAverages();
  const results: Record<string, T>[] = [];
  for (let i = 0; i < rounds; i++) {
    const figures: Record<string, T> = {};
    for (const [side, measure] of Object.entries(sides)) figures[side] = await measure();
    results.push(figures);
  }
  return { rounds: results, loadAverage: { before, after: loadAverages() } };
}

/** One goal of issue 52 beside its figure, as `npm run bench` prints them at the end. */
export interface Goal {
  goal: string;
  target: string;
  figure: number;
  /** How the figure was measured (and the load at the time). */
  measured: string;
  met: boolean;
}
