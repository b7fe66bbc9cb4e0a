import type { LlmToolCall } from "../llm/types.ts";
import { isRecord } from "../util/values.ts";
import type { ToolRun } from "./builtin-tools.ts";
import type { TurnContext } from "./turn-context.ts";
import { TurnFailure } from "./turn-outcome.ts";
import type { OfferedTool, ToolOffer, TurnPluginScope } from "./turn-plugins.ts";

export type { ToolRun } from "./builtin-tools.ts";

/**
 * The planner's tool calls in one turn, built-in and plugin tools alike: each call's tool is
 * looked up among those offered this round, its arguments are checked against the tool's
 * schema, the hooks are asked, and it runs. A second invalid or malformed call fails the turn.
 */
export class ToolCalls {
  private invalidArguments = 0;
  private malformedJson = 0;
  /** How long `wait` calls have held this turn so far. */
  private readonly waited = { ms: 0 };

  constructor(
    private readonly turn: TurnContext,
    private readonly plugins: TurnPluginScope,
  ) {}

  /**
   * Runs one answer's tool calls: consecutive plugin tool calls run concurrently, a built-in
   * call waits for the calls before it and runs alone (so nothing runs beside or after a
   * sent reply). Results come back in call order.
   */
  async run(calls: LlmToolCall[], plannerText: string, offer: ToolOffer): Promise<ToolRun[]> {
    const runs: Array<Promise<ToolRun>> = [];
    for (const call of calls) {
      const tool = offer.find(call.name);
      if (tool && "plugin" in tool) {
        runs.push(this.runTool(call, tool, plannerText));
        continue;
      }
      await Promise.all(runs);
      const run = this.runTool(call, tool, plannerText);
      runs.push(run);
      await run;
    }
    return Promise.all(runs);
  }

  /** Checks a call, asks the PreToolUse hooks, runs it, and tells the PostToolUse hooks. */
  private async runTool(
    call: LlmToolCall,
    tool: OfferedTool | undefined,
    plannerText: string,
  ): Promise<ToolRun> {
    if (call.invalidJson !== undefined) {
      this.malformedJson++;
      if (this.malformedJson > 1)
        throw new TurnFailure(`model sent malformed tool arguments twice (${call.name})`);
      return {
        output: { output: this.turn.settings.prompts.render("result_malformed_json"), isError: true },
      };
    }
    const input = isRecord(call.input) ? call.input : undefined;
    if (!input) return this.invalid(call.name, "arguments must be a JSON object");
    if (this.turn.replies.sentMessageIds.length > 0) {
      // One trigger never yields two replies: tools after a sent reply are not run.
      return {
        output: { output: this.turn.settings.prompts.render("result_already_replied"), isError: true },
      };
    }
    const refusal = await this.plugins.admit(call, input);
    if (refusal !== undefined) return { output: { output: refusal, isError: true } };
    const run = await this.dispatch(call, tool, input, plannerText);
    const failure = run.output.isError ? String(run.output.output) : undefined;
    await this.plugins.settled(call, input, run.acted ? undefined : run.output.output, failure);
    return run;
  }

  /** Every tool's arguments are checked against its schema (defaults filled) before it runs. */
  private async dispatch(
    call: LlmToolCall,
    tool: OfferedTool | undefined,
    input: Record<string, unknown>,
    plannerText: string,
  ): Promise<ToolRun> {
    if (!tool) return this.invalid(call.name, `unknown tool "${call.name}"`);
    // Checked (defaults filled) on a copy: the conversation keeps the arguments the model wrote.
    const args = structuredClone(input);
    const problem = ("builtin" in tool ? tool.builtin : tool.plugin).validate(args);
    if (problem !== undefined) return this.invalid(call.name, problem);
    if ("plugin" in tool) return this.runPluginTool(tool, call, args);
    return tool.builtin.run(args, {
      turn: this.turn,
      plugins: this.plugins,
      callId: call.id,
      plannerText,
      waited: this.waited,
      invalid: (problem) => this.invalid(call.name, problem),
    });
  }

  private async runPluginTool(
    tool: Extract<OfferedTool, { plugin: unknown }>,
    call: LlmToolCall,
    input: Record<string, unknown>,
  ): Promise<ToolRun> {
    const outcome = await this.plugins.runTool(tool.plugin, call, input);
    switch (outcome.kind) {
      case "result":
        return { output: { output: outcome.output } };
      case "done":
        return { output: { output: this.turn.settings.prompts.render("result_tool_acted") }, acted: true };
      case "failed":
        return {
          output: {
            output: this.turn.settings.prompts.render("result_tool_failed", {
              tool: call.name,
              error: outcome.error,
            }),
            isError: true,
          },
        };
    }
  }

  private invalid(tool: string, problem: string): ToolRun {
    this.invalidArguments++;
    if (this.invalidArguments > 1)
      throw new TurnFailure(`invalid tool arguments twice (${tool}: ${problem})`);
    return {
      output: {
        output: this.turn.settings.prompts.render("result_invalid_call", { tool, problem }),
        isError: true,
      },
    };
  }
}
