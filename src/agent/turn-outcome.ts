import type { TurnStatus } from "../store/types.ts";

export interface TurnOutcome {
  /** How a turn that ran ends (`running` and `interrupted` are states of a stored turn only). */
  status: Extract<TurnStatus, "replied" | "silent" | "failed">;
  reason: string;
}

/** A turn that cannot go on; its message is the one-line reason logged and stored. */
export class TurnFailure extends Error {}

/** A turn a limit stopped before its next model call: it ends silent, its message the reason. */
export class TurnStopped extends Error {}

/** The one-line reason a turn failed: why it was aborted (timeout, shutdown), else the error's message. */
export function failureReason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted && signal.reason instanceof TurnFailure) return signal.reason.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
