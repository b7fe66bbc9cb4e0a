import { parentPort, Worker, workerData } from "node:worker_threads";
import { errorMessage } from "./values.ts";

/**
 * Untrusted files (voice messages, web pages, documents) are decoded in a worker thread of
 * their own, so no input can hold the event loop or take the bot's heap with it: the worker
 * has a heap limit and a time limit, and is ended when either is reached. One worker a job;
 * at most {@link MAX_RUNNING} at once (the rest wait their turn).
 */
export interface OffThreadLimits {
  /** The job is ended after this long (its worker terminated). */
  timeoutMs: number;
  /** The worker's JavaScript heap (V8's old generation), in MB. */
  maxHeapMb: number;
}

export type OffThreadFailure = "timeout" | "memory" | "error";

export type OffThreadOutcome<Result> =
  | { ok: true; value: Result }
  | { ok: false; failure: OffThreadFailure; reason: string };

/** Workers running at once: the machine's cores are the bot's too. */
const MAX_RUNNING = 2;
/** A worker's stack: deep enough for real documents' nesting, small enough to fail fast. */
const STACK_MB = 4;

let running = 0;
const waiting: Array<() => void> = [];

/**
 * The worker module `name` beside the calling module: `./<name>.ts` when the bot runs from its
 * sources (tests, tsx), `./<name>.mjs` in the bundle, where every worker is an entry point of
 * its own in dist/server/ (scripts/build-server.ts).
 */
export function offThreadEntry(callerUrl: string, name: string): URL {
  return new URL(callerUrl.endsWith(".ts") ? `./${name}.ts` : `./${name}.mjs`, callerUrl);
}

/** Runs the worker module `entry` (one calling {@link serveOffThread}) on `input`; never rejects. */
export async function runOffThread<Input, Result>(
  entry: URL,
  input: Input,
  limits: OffThreadLimits,
  signal?: AbortSignal,
): Promise<OffThreadOutcome<Result>> {
  await turn(signal);
  if (signal?.aborted) return { ok: false, failure: "timeout", reason: "cancelled before it started" };
  running += 1;
  try {
    return await inWorker<Result>(entry, input, limits, signal);
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function turn(signal?: AbortSignal): Promise<void> {
  if (running < MAX_RUNNING) return Promise.resolve();
  return new Promise((resolve) => {
    const go = () => {
      signal?.removeEventListener("abort", cancel);
      resolve();
    };
    const cancel = () => {
      const index = waiting.indexOf(go);
      if (index >= 0) waiting.splice(index, 1);
      resolve();
    };
    waiting.push(go);
    signal?.addEventListener("abort", cancel, { once: true });
  });
}

function inWorker<Result>(
  entry: URL,
  input: unknown,
  limits: OffThreadLimits,
  signal?: AbortSignal,
): Promise<OffThreadOutcome<Result>> {
  const fromSources = entry.pathname.endsWith(".ts");
  // From the sources, a small loader registers tsx in the worker first (workers take no --import).
  const script = fromSources ? new URL("./off-thread-sources.mjs", import.meta.url) : entry;
  const worker = new Worker(script, {
    workerData: { entry: entry.href, input },
    resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, stackSizeMb: STACK_MB },
    // What the readers print (pdf.js warns about fonts) is theirs, not the bot's log.
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  // A job in flight does not keep a stopping bot alive.
  worker.unref();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: OffThreadOutcome<Result>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      void worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ ok: false, failure: "timeout", reason: `not done after ${limits.timeoutMs} ms` }),
      limits.timeoutMs,
    );
    const cancel = () => finish({ ok: false, failure: "timeout", reason: "cancelled" });
    signal?.addEventListener("abort", cancel, { once: true });
    worker.once("message", (message: WorkerAnswer<Result>) =>
      finish(message.ok ? message : { ok: false, failure: "error", reason: message.reason }),
    );
    worker.once("error", (error: Error & { code?: string }) =>
      finish(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? { ok: false, failure: "memory", reason: `ran out of its ${limits.maxHeapMb} MB of memory` }
          : { ok: false, failure: "error", reason: firstLine(error) },
      ),
    );
    worker.once("exit", (code) =>
      finish({ ok: false, failure: "error", reason: `the worker stopped (exit code ${code})` }),
    );
  });
}

type WorkerAnswer<Result> = { ok: true; value: Result } | { ok: false; reason: string };

/**
 * In a worker module: answers the job's input with `handler`'s value (a thrown error becomes a
 * refusal with its first line).
 */
export function serveOffThread<Input, Result>(handler: (input: Input) => Promise<Result> | Result): void {
  const port = parentPort;
  if (port === null) throw new Error("serveOffThread runs in a worker thread only");
  const { input } = workerData as { input: Input };
  void (async () => {
    let answer: WorkerAnswer<Result>;
    try {
      answer = { ok: true, value: await handler(input) };
    } catch (error) {
      answer = { ok: false, reason: firstLine(error) };
    }
    port.postMessage(answer);
  })();
}

function firstLine(error: unknown): string {
  return errorMessage(error).split("\n")[0]!;
}
