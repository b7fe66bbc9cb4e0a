import type { ToolComponent } from "../components/types.ts";
import type { LlmToolCall, LlmToolResult } from "../llm/types.ts";
import { type StickerCollection, stickerSegment } from "../media/sticker-collection.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import { RECALL_TOOL, REMEMBER_TOOL, runMemoryTool } from "../memory/memory-tools.ts";
import type { ReplyPlan } from "../reply/reply-plan.ts";
import type { ReplyStage } from "../reply/reply-stage.ts";
import { isRecord } from "../util/values.ts";
import {
  MAX_WAIT_SECONDS,
  NO_REPLY_TOOL,
  REPLY_TOOL,
  type ReplyArguments,
  SEND_STICKER_TOOL,
  WAIT_TOOL,
} from "./builtin-tools.ts";
import { POKE_TOOL, pokeBack } from "./poke-tool.ts";
import { replyerMessages } from "./prompt.ts";
import type { TurnContext } from "./turn-context.ts";
import { TurnFailure, type TurnOutcome } from "./turn-outcome.ts";
import type { TurnPluginScope } from "./turn-plugins.ts";

type ToolOutput = Pick<LlmToolResult, "output" | "isError">;

/** One tool call's result; `acted` marks a plugin tool that returned nothing (it has acted itself). */
export interface ToolRun {
  output: ToolOutput;
  outcome?: TurnOutcome;
  acted?: boolean;
}

/**
 * The planner's tool calls in one turn: the built-in reply / no_reply / wait and the plugins'
 * tools, with the hooks around them. A second invalid or malformed call fails the turn.
 */
export class ToolCalls {
  private invalidArguments = 0;
  private malformedJson = 0;
  /** How long `wait` calls have held this turn so far. */
  private waitedMs = 0;

  constructor(
    private readonly turn: TurnContext,
    private readonly plugins: TurnPluginScope,
    private readonly replyStage: ReplyStage,
    private readonly stickers: StickerCollection,
    private readonly memory: MemoryService,
  ) {}

  /**
   * Runs one answer's tool calls: consecutive plugin tool calls run concurrently, a built-in
   * call waits for the calls before it and runs alone (so nothing runs beside or after a
   * sent reply). Results come back in call order.
   */
  async run(calls: LlmToolCall[], plannerText: string): Promise<ToolRun[]> {
    const runs: Array<Promise<ToolRun>> = [];
    for (const call of calls) {
      if (this.plugins.findTool(call)) {
        runs.push(this.runTool(call, plannerText));
        continue;
      }
      await Promise.all(runs);
      const run = this.runTool(call, plannerText);
      runs.push(run);
      await run;
    }
    return Promise.all(runs);
  }

  /** Checks a call, asks the PreToolUse hooks, runs it, and tells the PostToolUse hooks. */
  private async runTool(call: LlmToolCall, plannerText: string): Promise<ToolRun> {
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
    const run = await this.dispatch(call, input, plannerText);
    const failure = run.output.isError ? String(run.output.output) : undefined;
    await this.plugins.settled(call, input, run.acted ? undefined : run.output.output, failure);
    return run;
  }

  private async dispatch(
    call: LlmToolCall,
    input: Record<string, unknown>,
    plannerText: string,
  ): Promise<ToolRun> {
    switch (call.name) {
      case REPLY_TOOL:
        return this.reply(call, input, plannerText);
      case NO_REPLY_TOOL: {
        const reason = typeof input.reason === "string" && input.reason ? input.reason : "no reason given";
        return { output: { output: "ok" }, outcome: { status: "silent", reason: `no_reply: ${reason}` } };
      }
      case WAIT_TOOL: {
        if (typeof input.seconds !== "number" || !(input.seconds >= 0)) {
          return this.invalid(call.name, "seconds must be a non-negative number");
        }
        return { output: { output: await this.wait(input.seconds) } };
      }
      case SEND_STICKER_TOOL:
        if (this.stickers.enabledIn(this.turn.batch.sessionId)) return this.sendSticker(input);
        return this.invalid(call.name, `unknown tool "${call.name}"`);
      case POKE_TOOL: {
        const poked = await pokeBack(this.turn);
        return poked === undefined
          ? this.invalid(call.name, "nobody poked you in this turn")
          : { output: { output: poked } };
      }
      case REMEMBER_TOOL:
      case RECALL_TOOL:
        if (this.memory.enabled()) return this.memoryTool(call.name, input);
        return this.invalid(call.name, `unknown tool "${call.name}"`);
      default: {
        const tool = this.plugins.findTool(call);
        if (!tool) return this.invalid(call.name, `unknown tool "${call.name}"`);
        return this.runPluginTool(tool, call, input);
      }
    }
  }

  private async runPluginTool(
    tool: ToolComponent,
    call: LlmToolCall,
    input: Record<string, unknown>,
  ): Promise<ToolRun> {
    const outcome = await this.plugins.runTool(tool, call, input);
    switch (outcome.kind) {
      case "result":
        return { output: { output: outcome.output } };
      case "done":
        return { output: { output: this.turn.settings.prompts.render("result_tool_acted") }, acted: true };
      case "invalid":
        return this.invalid(call.name, outcome.problem);
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

  /** The reply call: checked into a reply plan, which the reply stage writes and sends. */
  private async reply(
    call: LlmToolCall,
    input: Record<string, unknown>,
    plannerText: string,
  ): Promise<ToolRun> {
    const plan = await this.replyPlan(call, input as ReplyArguments, plannerText);
    if ("problem" in plan) return this.invalid(REPLY_TOOL, plan.problem);
    if (this.turn.settings.mode === "single") return this.sendWritten(plan, input.text);
    const target = plan.target;
    await this.turn.replies.write(plan, {
      generating: (extraPrompts) =>
        this.plugins.generating({
          reply_message_id: target.messageId,
          ...(plan.intent === undefined ? {} : { intent: plan.intent }),
          extra_prompt: extraPrompts.join("\n"),
        }),
      prompt: async (extraPrompts) =>
        replyerMessages({
          ...(await this.turn.promptInput()),
          targetLine: this.turn.line(target),
          intent: plan.intent,
          extraPrompts,
        }),
    });
    return this.replied(plan);
  }

  /**
   * Single mode: the reply call's `text` is sent as it is, no replyer call. Requirements the
   * selected reply extensions set in `prepare` go back to the planner, which writes the text
   * again in its next round (nothing is sent meanwhile).
   */
  private async sendWritten(plan: ReplyPlan, text: unknown): Promise<ToolRun> {
    if (typeof text !== "string" || text.trim() === "") {
      return this.invalid(REPLY_TOOL, "text must be the message to send, a non-empty string");
    }
    const sent = await this.turn.replies.send(plan, text);
    if ("requirements" in sent) {
      const requirements = sent.requirements.join("\n");
      return {
        output: { output: this.turn.settings.prompts.render("result_reply_requirements", { requirements }) },
      };
    }
    return this.replied(plan);
  }

  private replied(plan: ReplyPlan): ToolRun {
    return {
      output: { output: { sent: true, message_ids: this.turn.replies.sentMessageIds } },
      outcome: { status: "replied", reason: `replied to ${plan.target.messageId}` },
    };
  }

  /** The reply plan of a reply call, or what is wrong with the call (told to the model before anything is generated). */
  private async replyPlan(
    call: LlmToolCall,
    args: ReplyArguments,
    plannerText: string,
  ): Promise<ReplyPlan | { problem: string }> {
    if (args.msg_id !== undefined && typeof args.msg_id !== "string" && typeof args.msg_id !== "number") {
      return { problem: "msg_id must be a string" };
    }
    if (args.set_quote !== undefined && typeof args.set_quote !== "boolean") {
      return { problem: "set_quote must be a boolean" };
    }
    const target = await this.turn.findTarget(args.msg_id === undefined ? undefined : String(args.msg_id));
    if (!target) {
      return { problem: `no message with msg_id ${String(args.msg_id)} in this chat (or it was recalled)` };
    }
    const selection = this.replyStage.readOptions(args.plugin_options, this.plugins.session);
    if (!selection.ok) return { problem: selection.problem };
    const intent = typeof args.intent === "string" && args.intent ? args.intent : plannerText || undefined;
    return {
      callId: call.id,
      target,
      // A poke has no platform message to quote.
      quote: args.set_quote === true && target.notice === undefined,
      ...(intent === undefined ? {} : { intent }),
      extensions: selection.selected,
      origin: this.turn.origin(),
    };
  }

  /**
   * send_sticker: the kept sticker that fits the emotion or description best, sent through the
   * outbox (journalled like every send). The planner reads what was sent and may still reply.
   */
  private async sendSticker(input: Record<string, unknown>): Promise<ToolRun> {
    const emotion = typeof input.emotion === "string" ? input.emotion.trim() : "";
    const description = typeof input.description === "string" ? input.description.trim() : "";
    if (emotion === "" && description === "") {
      return this.invalid(SEND_STICKER_TOOL, "give an emotion or a description");
    }
    const prompts = this.turn.settings.prompts;
    const chosen = await this.stickers.choose({ emotion, description }, this.turn.batch.sessionId);
    if (!chosen) return { output: { output: prompts.render("result_sticker_none") } };
    const { sticker, bytes } = chosen;
    const sent = await this.turn.replies.sendMessage(this.turn.origin(), [stickerSegment(sticker, bytes)]);
    this.plugins.sentByTools.push(sent.messageId);
    await this.stickers.sent(sticker, sent.messageId, {
      replyId: this.turn.replyId,
      sessionId: this.turn.batch.sessionId,
    });
    return {
      output: { output: prompts.render("result_sticker_sent", { description: sticker.description }) },
    };
  }

  /** remember / recall: long-term memory of the people in this chat and of the group. */
  private async memoryTool(name: string, input: Record<string, unknown>): Promise<ToolRun> {
    const turn = this.turn;
    const target = await turn.findTarget(undefined);
    if (!target) return this.invalid(name, "no message to remember for");
    const result = await runMemoryTool(
      this.memory,
      name,
      input,
      {
        replyId: turn.replyId,
        messages: turn.batch.messages,
        target,
        scene: await turn.memoryScene(),
        nameOf: (userId) => turn.nameOf(userId),
      },
      turn.settings.prompts,
    );
    if ("problem" in result) return this.invalid(name, result.problem);
    if ("refused" in result) {
      // Not a malformed call: the model may tell the user, and the turn goes on.
      const output = turn.settings.prompts.render("result_memory_refused", { reason: result.refused });
      return { output: { output, isError: true } };
    }
    return { output: { output: result.output } };
  }

  /**
   * Waits up to `seconds` for the session's next messages, which join this turn: at most
   * MAX_WAIT_SECONDS per call and `agent.maxWaitSeconds` in all per turn, so a prompt injection
   * asking to wait again and again cannot hold the chat.
   */
  private async wait(seconds: number): Promise<string> {
    const { prompts, maxWaitSeconds } = this.turn.settings;
    const leftMs = maxWaitSeconds * 1000 - this.waitedMs;
    if (leftMs <= 0) return prompts.render("result_wait_spent", { max_seconds: String(maxWaitSeconds) });
    const started = Date.now();
    const deadline = started + Math.min(seconds * 1000, MAX_WAIT_SECONDS * 1000, leftMs);
    try {
      while (Date.now() < deadline && !this.turn.signal.aborted) {
        const arrived = await this.turn.absorb();
        if (arrived) {
          const messages = arrived.map((message) => this.turn.labelledLine(message)).join("\n");
          return prompts.render("result_wait_arrived", { messages });
        }
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(100, Math.max(0, deadline - Date.now()))),
        );
      }
      return prompts.render("result_wait_empty");
    } finally {
      this.waitedMs += Date.now() - started;
    }
  }
}
