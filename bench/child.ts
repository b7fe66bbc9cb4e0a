import { type ChildProcess, spawn } from "node:child_process";
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
