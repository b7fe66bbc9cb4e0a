import { errorMessage } from "../util/values.ts";
import { callWithLimit } from "./call-limit.ts";
import type { CallContext, ToolComponent } from "./types.ts";

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
 * calls it under its time limit (call-limit.ts: its own signal, aborted by the limit or the
 * end of the turn), and turns a throw, a timeout or an abort into a failure instead of
 * letting it escape.
 */
export async function executeTool(
  tool: ToolComponent,
  args: Record<string, unknown>,
  call: Omit<CallContext, "signal">,
  turnSignal: AbortSignal,
): Promise<ToolOutcome> {
  const problem = tool.validate(args);
  if (problem !== undefined) return { kind: "invalid", problem };
  try {
    const output = await callWithLimit(tool.timeoutMs, turnSignal, (signal) =>
      tool.invoke(args, { ...call, signal }),
    );
    return output === undefined || output === null ? { kind: "done" } : { kind: "result", output };
  } catch (error) {
    return { kind: "failed", error: errorMessage(error) };
  }
}
