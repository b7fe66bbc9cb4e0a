import { actionDisconnected, actionTimedOut, settleActionResponse } from "./action-error.ts";

interface PendingAction {
  action: string;
  resolve(data: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Writes one text frame; reports a failed write through `onError`. */
export type FrameWriter = (text: string, onError: (error: Error) => void) => void;

/**
 * Sends `{action, params, echo}` frames over one socket and matches answers by `echo`.
 * Echoes are strings, which every implementation returns verbatim.
 */
export class WsActionCaller {
  readonly #pending = new Map<string, PendingAction>();
  readonly #write: FrameWriter;
  #nextEcho = 1;

  constructor(write: FrameWriter) {
    this.#write = write;
  }

  call(action: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const echo = `tsumugi:${this.#nextEcho++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(echo);
        reject(actionTimedOut(action, timeoutMs));
      }, timeoutMs);
      this.#pending.set(echo, { action, resolve, reject, timer });
      this.#write(JSON.stringify({ action, params, echo }), (error) =>
        this.#fail(echo, actionDisconnected(action, `write failed: ${error.message}`, true)),
      );
    });
  }

  /** Settles the pending action the answer belongs to; false when no action waits for it. */
  settle(frame: Record<string, unknown>): boolean {
    if (typeof frame.echo !== "string") return false;
    const pending = this.#pending.get(frame.echo);
    if (!pending) return false;
    this.#pending.delete(frame.echo);
    clearTimeout(pending.timer);
    try {
      pending.resolve(settleActionResponse(pending.action, frame));
    } catch (error) {
      pending.reject(error as Error);
    }
    return true;
  }

  /** Fails every pending action at once, e.g. because the socket closed. */
  failAll(why: string): void {
    for (const echo of [...this.#pending.keys()]) {
      const pending = this.#pending.get(echo)!;
      this.#fail(echo, actionDisconnected(pending.action, why));
    }
  }

  #fail(echo: string, error: Error): void {
    const pending = this.#pending.get(echo);
    if (!pending) return;
    this.#pending.delete(echo);
    clearTimeout(pending.timer);
    pending.reject(error);
  }
}
