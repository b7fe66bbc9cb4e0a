import { promptRecord } from "../llm/prompt-record.ts";
import type { LlmMessage, LlmRequest, LlmResult, LlmToolResult } from "../llm/types.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { ReplyStage } from "../reply/reply-stage.ts";
import { clip } from "../util/values.ts";
import { plannerMessages } from "./prompt.ts";
import { ToolCalls } from "./tool-calls.ts";
import type { TurnContext } from "./turn-context.ts";
import { TurnFailure, type TurnOutcome } from "./turn-outcome.ts";

export interface PlannerLoopDeps {
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  replyStage: ReplyStage;
  monitor: Monitor;
}

/** How often one turn starts planning over because new messages arrived meanwhile. */
const MAX_REPLANS = 2;

/**
 * A realtime turn: the planner decides (reply / no_reply / wait / other tools) in bounded
 * rounds until a tool ends the turn. One trigger never yields two replies: once a reply is
 * sent the turn ends.
 */
export async function runPlanner(turn: TurnContext, deps: PlannerLoopDeps): Promise<TurnOutcome> {
  const { plugins } = turn;
  // A prompt a UserPromptSubmit guard refused ends the turn before anything else is asked.
  const start = await plugins.start();
  if ("refusal" in start) return { status: "silent", reason: start.refusal };
  turn.enrichments = start.enrichments;
  await turn.gatherContext();
  turn.systemParts = plugins.systemParts();
  const toolCalls = new ToolCalls(turn, plugins);
  const system = turn.settings.mode === "single" ? "planner_single" : "planner";
  let conversation: LlmMessage[] = plannerMessages(await turn.promptInput(), system);
  let replans = 0;
  const { maxRounds } = turn.settings;
  for (let round = 1; round <= maxRounds; round++) {
    // Per round: a plugin component disabled meanwhile is gone from the next request.
    const pluginOptions = deps.replyStage.optionsSchema(plugins.session);
    const { prompts, mode } = turn.settings;
    const offer = await plugins.offerTools(
      { prompts, mode, ...(pluginOptions && { pluginOptions }) },
      turn.batch,
    );
    const result = await deps.llm.generate({
      task: "planner",
      messages: conversation,
      tools: offer.specs,
      toolChoice: "auto",
      imagesOnlyIfAccepted: true,
      signal: turn.signal,
      replyId: turn.replyId,
      sessionId: turn.batch.sessionId,
    });
    turn.plannerRead();
    turn.recordCall(
      result,
      result.toolCalls.map((call) => call.name),
    );
    deps.monitor.emit({
      type: "planner.round",
      replyId: turn.replyId,
      sessionId: turn.batch.sessionId,
      data: {
        round,
        model: `${result.provider}/${result.model}`,
        prompt: promptRecord(conversation),
        text: result.text,
        toolCalls: result.toolCalls,
        usage: result.usage,
        latencyMs: result.latencyMs,
      },
    });
    // Messages that arrived (or were recalled) while the planner was thinking make its answer
    // stale: plan again with them instead of answering now and again in the next turn.
    if (replans < MAX_REPLANS && ((await turn.absorb()) || turn.takeRecalled())) {
      replans++;
      await turn.gatherContext();
      conversation = plannerMessages(await turn.promptInput(), system);
      continue;
    }
    if (result.toolCalls.length === 0) {
      return {
        status: "silent",
        reason: `planner called no tool${result.text ? `: ${clip(result.text, 120)}` : ""}`,
      };
    }
    conversation.push({
      role: "assistant",
      content: result.text,
      toolCalls: result.toolCalls.map(({ id, name, input }) => ({ id, name, input })),
    });
    const runs = await toolCalls.run(result.toolCalls, result.text, offer);
    const results: LlmToolResult[] = [];
    let ending: TurnOutcome | undefined;
    for (const [index, call] of result.toolCalls.entries()) {
      const { output, outcome } = runs[index]!;
      results.push({ toolCallId: call.id, toolName: call.name, ...output });
      deps.monitor.emit({
        type: "tool.called",
        replyId: turn.replyId,
        sessionId: turn.batch.sessionId,
        data: { name: call.name, input: call.input, output: output.output, isError: output.isError === true },
      });
      ending ??= outcome;
    }
    if (ending) return ending;
    // Plugin tools that all returned nothing have acted themselves: no further model call.
    if (runs.every((run) => run.acted)) {
      const names = result.toolCalls.map((call) => call.name).join(", ");
      const sent = plugins.sentByTools.length > 0;
      return { status: sent ? "replied" : "silent", reason: `tool ${names} acted and ended the turn` };
    }
    conversation.push({ role: "tool", results });
  }
  throw new TurnFailure(`planner did not finish within ${maxRounds} rounds`);
}
