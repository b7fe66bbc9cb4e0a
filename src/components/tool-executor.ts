import { errorMessage } from "../util/values.ts";
import { callWithLimit } from "./call-limit.ts";
import type { CallContext, PluginToolComponent } from "./types.ts";

/** How one plugin tool call ended. */
export type ToolOutcome =
  /** The tool returned a value: the model sees it and the planner runs again. */
  | { kind: "result"; output: unknown }
  /** The tool returned nothing (undefined / null): it has acted, no further model call is needed. */
  | { kind: "done" }
  /** The tool threw or ran past its timeout. */
  | { kind: "failed"; error: string };

/**
 * Runs one plugin tool whose arguments passed its schema: calls it under its time limit
 * (call-limit.ts: its own signal, aborted by the limit or the end of the turn), and turns a
 * throw, a timeout or an abort into a failure instead of letting it escape.
 */
export async function executeTool(
  tool: PluginToolComponent,
  args: Record<string, unknown>,
  call: Omit<CallContext, "signal">,
  turnSignal: AbortSignal,
): Promise<ToolOutcome> {
  try {
    const output = await callWithLimit(tool.timeoutMs, turnSignal, (signal) =>
      tool.invoke(args, { ...call, signal }),
    );
    return output === undefined || output === null ? { kind: "done" } : { kind: "result", output };
  } catch (error) {
    return { kind: "failed", error: errorMessage(error) };
  }
}
