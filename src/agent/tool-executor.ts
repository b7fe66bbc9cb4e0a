import type { CallContext, ToolComponent } from "../plugins/components.ts";
import { errorMessage } from "../util/values.ts";

/** How one plugin tool call ended. */
export type ToolOutcome =
  /** The tool returned a value: the model sees it and the planner runs again. */
  | { kind: "result"; output: unknown }
  /** The tool returned nothing (undefined / null): it has acted, no further model call is needed. */
  | { kind: "done" }
  /** The arguments did not match the tool's schema; the tool did not run. */
  | { kind: "invalid"; problem: string }
  /** The tool threw or ran past its timeout. */
  | { kind: "failed"; error: string };

/**
 * Runs one plugin tool: validates the arguments against its schema (defaults filled),
 * calls it with its own abort signal, and turns a throw or a timeout into a failure
 * instead of letting it escape. The turn's signal aborts the call too.
 */
export async function executeTool(
  tool: ToolComponent,
  args: Record<string, unknown>,
  call: Omit<CallContext, "signal">,
  turnSignal: AbortSignal,
): Promise<ToolOutcome> {
  const problem = tool.validate(args);
  if (problem !== undefined) return { kind: "invalid", problem };
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(turnSignal.reason);
  turnSignal.addEventListener("abort", forwardAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<ToolOutcome>((resolve) => {
    timer = setTimeout(() => {
      const error = `timed out after ${tool.timeoutMs} ms`;
      controller.abort(new Error(error));
      resolve({ kind: "failed", error });
    }, tool.timeoutMs);
  });
  const ran = tool.invoke(args, { ...call, signal: controller.signal }).then(
    (output): ToolOutcome =>
      output === undefined || output === null ? { kind: "done" } : { kind: "result", output },
    (error: unknown): ToolOutcome => ({ kind: "failed", error: errorMessage(error) }),
  );
  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    clearTimeout(timer);
    turnSignal.removeEventListener("abort", forwardAbort);
  }
}
