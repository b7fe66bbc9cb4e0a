import { type ChildProcess, spawn } from "node:child_process";
import type { Stream } from "node:stream";
import type { Logger } from "../../log/logger.ts";
import { parseJsonLossless } from "../../util/json.ts";
import { clip } from "../../util/values.ts";
import type { LaunchPlan } from "../isolation/process-isolation.ts";
import { encodeLine, LineSplitter, MAX_LINE_BYTES } from "./json-lines.ts";
import { answerError, classifyLine, type JsonObject, oversizedLineKind } from "./protocol.ts";

/**
 * What every plugin process gets of the bot's environment: enough to find programs, run in
 * the user's locale and time zone and write temporary files (on Windows, what Node and Python
 * need to start at all). Anything else, such as the bot's API keys, only when declared.
 */
const BASIC_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "SYSTEMROOT",
  "COMSPEC",
  "PATHEXT",
];

/** The plugin process's environment: the basic variables, `LC_*`, the declared ones and the host's own. */
export function pluginEnvironment(
  source: NodeJS.ProcessEnv,
  declared: readonly string[],
): Record<string, string> {
  const names = [...BASIC_ENV, ...Object.keys(source).filter((name) => name.startsWith("LC_")), ...declared];
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  // UTF-8 lines whatever the locale, and Python output that is not held back in a buffer.
  return { ...env, PYTHONIOENCODING: "utf-8", PYTHONUNBUFFERED: "1" };
}

/** Longest stderr line logged whole; the rest of a longer one is dropped. */
const MAX_STDERR_LINE_BYTES = 16 * 1024;

/**
 * Logs a child process's stderr (a plugin's, an MCP server's) a line at a time, each passed
 * through `redact` first: whatever the process prints, the bot's secrets do not reach the log.
 */
export function logStderr(
  stderr: Stream,
  redact: (text: string) => string,
  log: (text: string) => void,
): void {
  const lines = new LineSplitter(
    {
      line: (text) => log(redact(text)),
      oversized: (bytes) => log(`(a stderr line of ${bytes} bytes, not logged)`),
    },
    MAX_STDERR_LINE_BYTES,
  );
  stderr.on("data", (chunk: Buffer) => lines.push(chunk));
}
/** How long a process that closed its stdout may take to exit before it is killed. */
const STDOUT_CLOSED_GRACE_MS = 1_000;

export interface PluginProcessOptions {
  /** How the process is started (ProcessIsolation): no shell is involved. */
  plan: LaunchPlan;
  /** Removes the bot's secrets from a stderr line before it is logged. */
  redact: (text: string) => string;
  /** Per-call limit; a call past it fails and the process is killed. */
  timeoutMs: number;
  logger: Logger;
  /** A push from the plugin: a line with `method` and no `result`/`error`. */
  push(method: string, params: JsonObject): void;
  /**
   * No call can be answered any more (stdout closed, the process exited or was killed);
   * called once, before the waiting calls fail.
   */
  closed(reason: string): void;
  /** The process is gone; called once, after `closed`, with how it ended. */
  ended(reason: string): void;
}

export interface CallOptions {
  /** Default the process's `timeoutMs`. */
  timeoutMs?: number;
  /** Aborting drops the call while it still waits its turn (a sent call cannot be taken back). */
  signal?: AbortSignal;
}

/** The plugin answered `{"error": …}`. */
export class PluginCallError extends Error {}

interface PendingCall {
  method: string;
  line: string;
  timeoutMs: number;
  resolve(answer: JsonObject): void;
  reject(error: Error): void;
  dropOnAbort?: () => void;
  signal?: AbortSignal;
}

/**
 * One running plugin process speaking JSON lines: one call in flight at a time, the others
 * waiting in arrival order; the answer is whatever non-push line comes next. Stdout closing
 * or the process ending fails every call at once; a call past its timeout fails and the
 * process is killed (its supervisor decides about a restart).
 */
export class PluginProcess {
  private readonly child: ChildProcess;
  private readonly queue: PendingCall[] = [];
  private current: PendingCall | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Why calls can no longer be answered; set once. */
  private closed: string | undefined;
  /** Why the process is ending, when the host ended it or it could not start. */
  private endCause: string | undefined;
  /** The line over the limit being dropped was an answer, already reported with its call. */
  private droppingAnswer = false;
  private readonly exited: Promise<void>;

  constructor(private readonly options: PluginProcessOptions) {
    const { file, args, cwd, env } = options.plan;
    this.child = spawn(file, args, { cwd, stdio: ["pipe", "pipe", "pipe"], env });
    const { logger } = options;
    this.exited = new Promise((resolve) => this.child.once("close", () => resolve()));
    this.child.once("error", (error: NodeJS.ErrnoException) => {
      this.endCause ??=
        error.code === "ENOENT"
          ? `cannot start: command "${file}" not found`
          : `cannot start: ${error.message}`;
    });
    this.child.once("close", (code, signal) => {
      const reason = this.endCause ?? (signal ? `was killed by ${signal}` : `exited with code ${code}`);
      this.close(reason);
      this.options.ended(reason);
    });
    // Writing to a process that just died raises EPIPE here; its end is reported by "close".
    this.child.stdin!.on("error", () => {});
    const stdout = new LineSplitter({
      line: (text) => this.onLine(text),
      tooLong: (head) => this.lineTooLong(head),
      oversized: (bytes) => {
        if (this.droppingAnswer) this.droppingAnswer = false;
        else
          logger.warn({ bytes }, `plugin wrote a line of ${bytes} bytes, more than the 1 MB limit; skipped`);
      },
    });
    this.child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
    this.child.stdout!.once("end", () => this.stdoutClosed());
    logStderr(this.child.stderr!, options.redact, (text) => logger.info({ stream: "stderr" }, text));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends a request and resolves with the answer; rejects on `{"error"}`, a timeout or the process ending. */
  call(method: string, params?: JsonObject, options: CallOptions = {}): Promise<JsonObject> {
    if (this.closed) return Promise.reject(new Error(`the plugin process ${this.closed}`));
    let line: string;
    try {
      line = encodeLine(params === undefined ? { method } : { method, params });
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const pending: PendingCall = {
        method,
        line,
        timeoutMs: options.timeoutMs ?? this.options.timeoutMs,
        resolve,
        reject,
      };
      const { signal } = options;
      if (signal) {
        if (signal.aborted) return reject(abortError(signal));
        pending.signal = signal;
        pending.dropOnAbort = () => {
          const index = this.queue.indexOf(pending);
          if (index === -1) return;
          this.queue.splice(index, 1);
          reject(abortError(signal));
        };
        signal.addEventListener("abort", pending.dropOnAbort, { once: true });
      }
      this.queue.push(pending);
      if (!this.current) this.sendNext();
    });
  }

  /**
   * Writes a line that is not a request (nothing answers it): the bot's answer to a push, such
   * as a `picture` for `fetch_picture`. It may pass the 1 MB line limit: the plugin asked for
   * it, and a picture is at most `media.maxBytes`. Dropped once the process can no longer read.
   */
  notify(method: string, params: JsonObject): void {
    if (this.closed) return;
    this.child.stdin!.write(`${JSON.stringify({ method, params })}\n`);
  }

  /**
   * Deactivation: `deactivate`, then stdin closed; a process still running `graceMs` after
   * the request was queued is killed. Resolves once the process is gone.
   */
  async shutdown(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    if (!this.closed) {
      // The grace below decides; the call's own limit only has to come later.
      const answered = this.call("deactivate", undefined, { timeoutMs: graceMs + 1_000 }).then(
        () => true,
        (error: Error) => {
          this.options.logger.debug({ err: error.message }, "deactivate was not answered");
          return false;
        },
      );
      await Promise.race([answered, delay(graceMs)]);
    }
    this.child.stdin!.end();
    const exited = await Promise.race([this.exited.then(() => true), delay(deadline - Date.now())]);
    if (!exited) {
      this.options.logger.warn(`plugin process did not exit within ${graceMs} ms of deactivate; killed`);
      this.kill("was killed: it did not exit after deactivate");
      await this.exited;
    }
  }

  /** Ends the process at once (SIGKILL) and resolves once it is gone. */
  async terminate(reason: string): Promise<void> {
    this.kill(reason);
    await this.exited;
  }

  /** Ends the process at once (SIGKILL); calls fail with `reason`. */
  kill(reason: string): void {
    this.endCause ??= reason;
    this.close(reason);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private sendNext(): void {
    const pending = this.queue.shift();
    if (!pending) return;
    this.current = pending;
    if (pending.dropOnAbort) pending.signal!.removeEventListener("abort", pending.dropOnAbort);
    this.timer = setTimeout(() => this.timedOut(pending), pending.timeoutMs);
    this.child.stdin!.write(pending.line);
  }

  private onLine(text: string): void {
    let value: unknown;
    try {
      value = parseJsonLossless(text);
    } catch {
      this.options.logger.warn({ line: clip(text, 200) }, "plugin wrote a line that is not JSON; skipped");
      return;
    }
    const line = classifyLine(value);
    if (!line) {
      this.options.logger.warn(
        { line: clip(text, 200) },
        "plugin wrote a line that is not a JSON object; skipped",
      );
      return;
    }
    if (line.kind === "push") {
      this.options.push(line.method, line.params);
      return;
    }
    const pending = this.current;
    if (!pending) {
      this.options.logger.warn({ line: clip(text, 200) }, "plugin answered with no call pending; skipped");
      return;
    }
    clearTimeout(this.timer);
    this.current = undefined;
    const error = answerError(line.answer);
    if (error === undefined) pending.resolve(line.answer);
    else pending.reject(new PluginCallError(error));
    this.sendNext();
  }

  /**
   * A line has passed the length limit. An answer cannot be read any more, so its call fails
   * now rather than at its timeout, and the process lives on: the rest of the line is
   * dropped, and the next call's answer can only come after it. Only one call is in flight,
   * so an answer is always the current call's (the protocol has no request ids).
   */
  private lineTooLong(head: string): void {
    const pending = this.current;
    if (!pending || oversizedLineKind(head) === "push") return;
    clearTimeout(this.timer);
    this.current = undefined;
    this.droppingAnswer = true;
    const reason = `the plugin's answer to ${pending.method} is longer than ${MAX_LINE_BYTES} bytes, the most one line may carry`;
    this.options.logger.warn({ method: pending.method }, `${reason}; the call failed, the line is skipped`);
    pending.reject(new Error(reason));
    this.sendNext();
  }

  private timedOut(pending: PendingCall): void {
    if (this.current !== pending) return;
    const reason = `${pending.method} timed out after ${pending.timeoutMs} ms`;
    this.current = undefined;
    pending.reject(new Error(reason));
    this.options.logger.warn(`plugin call ${reason}; the process is killed`);
    this.kill(`was killed: ${reason}`);
  }

  private stdoutClosed(): void {
    if (this.closed) return;
    // A command that could not start ends its stdout too: its calls fail with the real cause.
    this.close(this.endCause ?? "closed its stdout");
    // It can no longer answer: a process that lingers is ended.
    const timer = setTimeout(() => this.kill("was killed: it closed its stdout"), STDOUT_CLOSED_GRACE_MS);
    timer.unref();
    void this.exited.then(() => clearTimeout(timer));
  }

  /** No call can be answered any more: every waiting one fails now. */
  private close(reason: string): void {
    if (this.closed) return;
    this.closed = reason;
    clearTimeout(this.timer);
    this.options.closed(reason);
    const failed = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    this.current = undefined;
    for (const pending of failed) {
      if (pending.dropOnAbort) pending.signal!.removeEventListener("abort", pending.dropOnAbort);
      pending.reject(new Error(`the plugin process ${reason}`));
    }
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("the call was aborted");
}

function delay(ms: number): Promise<false> {
  return new Promise((resolve) => setTimeout(() => resolve(false), Math.max(0, ms)).unref());
}
