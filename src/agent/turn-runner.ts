import { randomUUID } from "node:crypto";
import { wasNotSent } from "../adapters/types.ts";
import type { Batch } from "../chat/batch.ts";
import { stripLeadingMention } from "../chat/triggers.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import { findQuoteMessage } from "../context/quote-source.ts";
import type { LlmMessage, LlmRequest, LlmResult, LlmToolCall, LlmToolResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { ToolComponent } from "../plugins/components.ts";
import type { ReplyExtensionRunner } from "../reply/extension-runner.ts";
import type { Outbox } from "../reply/outbox.ts";
import { type OutgoingReply, textReplies } from "../reply/reply-group.ts";
import type { MessageStore, TurnStatus, TurnStore } from "../store/types.ts";
import {
  builtinToolSpecs,
  MAX_WAIT_SECONDS,
  NO_REPLY_TOOL,
  REPLY_TOOL,
  type ReplyArguments,
  WAIT_TOOL,
} from "./builtin-tools.ts";
import { type PromptIdentity, plannerMessages, replyerMessages, type TurnPromptInput } from "./prompt.ts";
import { splitText } from "./split-text.ts";
import { boundedHistory, formatMessageLine } from "./transcript.ts";
import {
  boundedTranscript,
  digestMessages,
  isSkipAnswer,
  summaryMessages,
  type TranscriptPromptInput,
} from "./transcript-prompt.ts";
import { TurnJournal } from "./turn-journal.ts";
import type { TurnPluginScope, TurnPlugins } from "./turn-plugins.ts";

/** How digest and summary turns read their transcript: the model task and the size bound. */
export interface TranscriptTurnSettings {
  task: string;
  maxTranscriptChars: number;
}

export interface AgentSettings {
  identity: PromptIdentity;
  maxRounds: number;
  turnTimeoutMs: number;
  history: { maxMessages: number; maxChars: number };
  textChunkLimit: number;
  digest: TranscriptTurnSettings;
  summary: TranscriptTurnSettings;
  /** `chat.timezone`'s clock, for every time the models read. */
  clock: ZonedClock;
}

export interface TurnRunnerDeps {
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  messages: MessageStore;
  turns: TurnStore;
  outbox: Outbox;
  /** The quote block (seed 003) for a realtime turn's quoting message; never rejects. */
  quotes: { blockFor(message: ChatMessage, replyId: string): Promise<string | undefined> };
  settings: () => AgentSettings;
  /** Plugin tools, enrichers and hooks. */
  plugins: TurnPlugins;
  /** Reply extensions (seeds 000/001): `plugin_options` of the reply tool, prepare and before_send. */
  replyExtensions: ReplyExtensionRunner;
  monitor: Monitor;
  logger: Logger;
}

interface TurnOutcome {
  status: TurnStatus;
  reason: string;
}

/** How often one turn starts planning over because new messages arrived meanwhile. */
const MAX_REPLANS = 2;

/** A turn that cannot go on; its message is the one-line reason logged and stored. */
class TurnFailure extends Error {}

/** One tool call's result; `acted` marks a plugin tool that returned nothing (it has acted itself). */
interface ToolRun {
  output: Pick<LlmToolResult, "output" | "isError">;
  outcome?: TurnOutcome;
  acted?: boolean;
}

/**
 * One agent turn: the planner decides (reply / no_reply / wait / other tools) in bounded
 * rounds; a reply is written by the replyer and sent. One trigger never yields two replies:
 * once a reply is sent the turn ends.
 */
export class TurnRunner {
  private readonly running = new Set<AbortController>();

  constructor(private readonly deps: TurnRunnerDeps) {}

  /** Fails every running turn at once (shutdown): each ends cleanly with this reason. */
  abortAll(reason: string): void {
    for (const controller of this.running) controller.abort(new TurnFailure(reason));
  }

  /** Runs one turn; `recoveredFrom` names the interrupted turn it runs again after a restart. */
  async run(
    initial: Batch,
    absorbInto: (current: Batch) => Batch | undefined,
    recoveredFrom?: string,
  ): Promise<void> {
    const replyId = randomUUID();
    const createdAt = Date.now();
    const journal = new TurnJournal(this.deps.turns, this.deps.logger, replyId, createdAt, recoveredFrom);
    journal.running(initial);
    const settings = this.deps.settings();
    const abort = new AbortController();
    this.running.add(abort);
    const timer = setTimeout(() => abort.abort(new TurnFailure("turn timed out")), settings.turnTimeoutMs);
    const plugins = this.deps.plugins.forTurn(initial, replyId, abort.signal);
    const turn = new Turn(replyId, initial, absorbInto, settings, this.deps, abort.signal, plugins, journal);
    this.deps.monitor.emit({
      type: "turn.started",
      replyId,
      sessionId: initial.sessionId,
      data: {
        kind: initial.kind,
        messageIds: initial.messages.map((m) => m.messageId),
        triggerIds: initial.triggerIds,
        ...(recoveredFrom === undefined ? {} : { recoveredFrom }),
      },
    });
    let outcome: TurnOutcome;
    try {
      outcome = await (initial.kind === "realtime" ? turn.plan() : turn.readTranscript());
    } catch (error) {
      outcome = { status: "failed", reason: failureReason(error, abort.signal) };
    } finally {
      clearTimeout(timer);
      this.running.delete(abort);
    }
    await plugins.stop(outcome.status, outcome.reason);
    const record = journal.finished(turn.batch, outcome, turn.detail());
    this.deps.monitor.emit({
      type: "turn.finished",
      replyId,
      sessionId: initial.sessionId,
      data: { status: outcome.status, reason: outcome.reason, durationMs: record.finishedAt - createdAt },
    });
    const line = { replyId, sessionId: initial.sessionId, status: outcome.status, reason: outcome.reason };
    if (outcome.status === "failed") this.deps.logger.warn(line, "turn failed");
    else this.deps.logger.info(line, `turn ${outcome.status}`);
  }
}

function failureReason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted && signal.reason instanceof TurnFailure) return signal.reason.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

class Turn {
  private readonly rounds: Array<{ toolCalls: string[]; text: string; model: string; latencyMs: number }> =
    [];
  private history: { batch: Batch; lines: string[] } | undefined;
  private invalidArguments = 0;
  private malformedJson = 0;
  private sentMessageIds: string[] = [];
  /** The message whose quote `quoteBlock` renders; resolved again only when a newer one arrives. */
  private quoteMessage: ChatMessage | undefined;
  private quoteBlock: string | undefined;
  /** Enricher sections for the planner's system prompt, gathered once per turn. */
  private enrichments: string[] = [];
  /** The channel's system prompt parts, read once per turn. */
  private systemParts: string[] = [];

  constructor(
    private readonly replyId: string,
    public batch: Batch,
    private readonly absorbInto: (current: Batch) => Batch | undefined,
    private readonly settings: AgentSettings,
    private readonly deps: TurnRunnerDeps,
    private readonly signal: AbortSignal,
    private readonly plugins: TurnPluginScope,
    private readonly journal: TurnJournal,
  ) {}

  detail(): Record<string, unknown> {
    return {
      rounds: this.rounds,
      sentMessageIds: this.sentMessageIds,
      sentByTools: this.plugins.sentByTools,
      // Left out to keep the prompt bounded; the turn answered the batch as a whole.
      ...(this.batch.omitted && { omitted: this.batch.omitted }),
    };
  }

  async plan(): Promise<TurnOutcome> {
    // A prompt a UserPromptSubmit guard refused ends the turn before anything else is asked.
    const start = await this.plugins.start();
    if ("refusal" in start) return { status: "silent", reason: start.refusal };
    this.enrichments = start.enrichments;
    await this.resolveQuote();
    this.systemParts = this.plugins.systemParts();
    let conversation: LlmMessage[] = plannerMessages(this.promptInput());
    let replans = 0;
    for (let round = 1; round <= this.settings.maxRounds; round++) {
      // Per round: a plugin component disabled meanwhile is gone from the next request.
      const pluginOptions = this.deps.replyExtensions.optionsSchema(this.plugins.session);
      const tools = [...builtinToolSpecs(pluginOptions), ...this.plugins.toolSpecs()];
      const result = await this.deps.llm.generate({
        task: "planner",
        messages: conversation,
        tools,
        toolChoice: "auto",
        signal: this.signal,
        replyId: this.replyId,
        sessionId: this.batch.sessionId,
      });
      this.rounds.push({
        toolCalls: result.toolCalls.map((call) => call.name),
        text: result.text,
        model: `${result.provider}/${result.model}`,
        latencyMs: result.latencyMs,
      });
      this.deps.monitor.emit({
        type: "planner.round",
        replyId: this.replyId,
        sessionId: this.batch.sessionId,
        data: {
          round,
          model: `${result.provider}/${result.model}`,
          prompt: conversation,
          text: result.text,
          toolCalls: result.toolCalls,
          usage: result.usage,
          latencyMs: result.latencyMs,
        },
      });
      // Messages that arrived while the planner was thinking make its answer stale: plan
      // again with them instead of answering now and again in the next turn.
      if (replans < MAX_REPLANS && this.absorb()) {
        replans++;
        await this.resolveQuote();
        conversation = plannerMessages(this.promptInput());
        continue;
      }
      if (result.toolCalls.length === 0) {
        return {
          status: "silent",
          reason: `planner called no tool${result.text ? `: ${clip(result.text)}` : ""}`,
        };
      }
      conversation.push({
        role: "assistant",
        content: result.text,
        toolCalls: result.toolCalls.map(({ id, name, input }) => ({ id, name, input })),
      });
      const runs = await this.runCalls(result.toolCalls, result.text);
      const results: LlmToolResult[] = [];
      let ending: TurnOutcome | undefined;
      for (const [index, call] of result.toolCalls.entries()) {
        const { output, outcome } = runs[index]!;
        results.push({ toolCallId: call.id, toolName: call.name, ...output });
        this.deps.monitor.emit({
          type: "tool.called",
          replyId: this.replyId,
          sessionId: this.batch.sessionId,
          data: {
            name: call.name,
            input: call.input,
            output: output.output,
            isError: output.isError === true,
          },
        });
        ending ??= outcome;
      }
      if (ending) return ending;
      // Plugin tools that all returned nothing have acted themselves: no further model call.
      if (runs.every((run) => run.acted)) {
        const names = result.toolCalls.map((call) => call.name).join(", ");
        const sent = this.plugins.sentByTools.length > 0;
        return { status: sent ? "replied" : "silent", reason: `tool ${names} acted and ended the turn` };
      }
      conversation.push({ role: "tool", results });
    }
    throw new TurnFailure(`planner did not finish within ${this.settings.maxRounds} rounds`);
  }

  /**
   * A digest or summary turn: one model call over the transcript, bounded by
   * `maxTranscriptChars`; the answer is sent, except a digest's `SKIP`.
   */
  async readTranscript(): Promise<TurnOutcome> {
    const kind = this.batch.kind === "digest" ? "digest" : "summary";
    const { task, maxTranscriptChars } = this.settings[kind];
    if (kind === "summary" && this.batch.messages.length === 0) {
      await this.send(textReplies(["最近没有可以总结的聊天记录。"]), undefined);
      return { status: "replied", reason: "summary: nothing to summarise" };
    }
    const selfName = this.settings.identity.name;
    const lines = this.batch.messages.map((message) =>
      formatMessageLine(message, this.settings.clock.time, { selfName }),
    );
    const input: TranscriptPromptInput = {
      identity: this.settings.identity,
      chat: this.chat(),
      transcriptLines: boundedTranscript(lines, maxTranscriptChars),
      now: Date.now(),
      clock: this.settings.clock,
    };
    const requester = this.batch.requestedBy;
    const result = await this.deps.llm.generate({
      task,
      messages:
        kind === "digest"
          ? digestMessages(input)
          : summaryMessages(input, requester ? `${requester.senderName}(${requester.userId})` : "有人"),
      signal: this.signal,
      replyId: this.replyId,
      sessionId: this.batch.sessionId,
    });
    this.rounds.push({
      toolCalls: [],
      text: result.text,
      model: `${result.provider}/${result.model}`,
      latencyMs: result.latencyMs,
    });
    this.deps.monitor.emit({
      type: "transcript.read",
      replyId: this.replyId,
      sessionId: this.batch.sessionId,
      data: {
        kind,
        lines: input.transcriptLines.length,
        model: `${result.provider}/${result.model}`,
        text: result.text,
        usage: result.usage,
        latencyMs: result.latencyMs,
      },
    });
    if (kind === "digest" && isSkipAnswer(result.text)) return { status: "silent", reason: "digest: SKIP" };
    const chunks = splitText(result.text, this.settings.textChunkLimit);
    if (chunks.length === 0) return { status: "silent", reason: `${kind}: the model wrote nothing` };
    await this.send(textReplies(chunks), undefined);
    return {
      status: "replied",
      reason: `${kind} of ${input.transcriptLines.length} messages`,
    };
  }

  /**
   * Runs one answer's tool calls: consecutive plugin tool calls run concurrently, a built-in
   * call waits for the calls before it and runs alone (so nothing runs beside or after a
   * sent reply). Results come back in call order.
   */
  private async runCalls(calls: LlmToolCall[], plannerText: string): Promise<ToolRun[]> {
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
      return { output: { output: "工具参数不是合法的 JSON，请重新调用。", isError: true } };
    }
    const input = isRecord(call.input) ? call.input : undefined;
    if (!input) return this.invalid(call.name, "arguments must be a JSON object");
    if (this.sentMessageIds.length > 0) {
      // One trigger never yields two replies: tools after a sent reply are not run.
      return { output: { output: "本轮已经回复过了，未执行。", isError: true } };
    }
    const refusal = await this.plugins.admit(call, input);
    if (refusal !== undefined) return { output: { output: refusal, isError: true } };
    const run = await this.dispatchTool(call, input, plannerText);
    const failure = run.output.isError ? String(run.output.output) : undefined;
    await this.plugins.settled(call, input, run.acted ? undefined : run.output.output, failure);
    return run;
  }

  private async dispatchTool(
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
        return { output: { output: "已完成。" }, acted: true };
      case "invalid":
        return this.invalid(call.name, outcome.problem);
      case "failed":
        return { output: { output: `工具 ${call.name} 出错：${outcome.error}`, isError: true } };
    }
  }

  private invalid(tool: string, problem: string): { output: Pick<LlmToolResult, "output" | "isError"> } {
    this.invalidArguments++;
    if (this.invalidArguments > 1)
      throw new TurnFailure(`invalid tool arguments twice (${tool}: ${problem})`);
    return { output: { output: `调用 ${tool} 出错：${problem}`, isError: true } };
  }

  private async reply(
    call: LlmToolCall,
    input: Record<string, unknown>,
    plannerText: string,
  ): Promise<{ output: Pick<LlmToolResult, "output" | "isError">; outcome?: TurnOutcome }> {
    const args = input as ReplyArguments;
    if (args.msg_id !== undefined && typeof args.msg_id !== "string" && typeof args.msg_id !== "number") {
      return this.invalid(REPLY_TOOL, "msg_id must be a string");
    }
    if (args.set_quote !== undefined && typeof args.set_quote !== "boolean") {
      return this.invalid(REPLY_TOOL, "set_quote must be a boolean");
    }
    const target = this.findTarget(args.msg_id === undefined ? undefined : String(args.msg_id));
    if (!target)
      return this.invalid(REPLY_TOOL, `no message with msg_id ${String(args.msg_id)} in this chat`);
    // Reply extensions: the model is told about bad plugin_options before anything is generated.
    const selection = this.deps.replyExtensions.select(args.plugin_options, this.plugins.session);
    if (!selection.ok) return this.invalid(REPLY_TOOL, selection.problem);
    const extensions = this.deps.replyExtensions.chain(
      { replyId: this.replyId, callId: call.id, target, signal: this.signal },
      selection.selected,
    );
    const extraPrompts = await extensions.prepare();
    const intent = typeof args.intent === "string" && args.intent ? args.intent : plannerText || undefined;
    await this.plugins.generating({
      reply_message_id: target.messageId,
      ...(intent === undefined ? {} : { intent }),
      extra_prompt: extraPrompts.join("\n"),
    });
    const written = await this.deps.llm.generate({
      task: "replyer",
      messages: replyerMessages({
        ...this.promptInput(),
        targetLine: formatMessageLine(target, this.settings.clock.time, {
          selfName: this.settings.identity.name,
        }),
        intent,
        extraPrompts,
      }),
      signal: this.signal,
      replyId: this.replyId,
      sessionId: this.batch.sessionId,
    });
    const chunks = splitText(written.text, this.settings.textChunkLimit);
    if (chunks.length === 0) throw new TurnFailure("replyer returned no text");
    // Every failure before this point sends nothing: the group is complete before the first send.
    const group = await extensions.beforeSend(written.text.trim(), chunks);
    await this.send(group, args.set_quote === true ? target.messageId : undefined);
    return {
      output: { output: { sent: true, message_ids: this.sentMessageIds } },
      outcome: { status: "replied", reason: `replied to ${target.messageId}` },
    };
  }

  /**
   * Sends a reply's messages in order. The first quotes `quoteId` (the reply's set_quote); a
   * later one quotes the message sent before it when it asks to (`quote_previous`).
   */
  private async send(group: OutgoingReply[], quoteId: string | undefined): Promise<void> {
    const origin =
      this.batch.requestedBy ??
      this.batch.messages.find((message) => !message.fromSelf) ??
      this.batch.messages[0]!;
    let previous: string | undefined;
    for (const [index, message] of group.entries()) {
      const quote = index === 0 ? quoteId : message.quotePrevious ? previous : undefined;
      const segments =
        quote === undefined
          ? message.segments
          : [{ type: "reply" as const, data: { id: quote } }, ...message.segments];
      try {
        const sent = await this.deps.outbox.send(origin, segments, this.replyId, this.signal);
        this.sentMessageIds.push(sent.messageId);
        previous = sent.messageId;
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        // OneBot has no idempotency key: a message that may have left is never sent again.
        const doubt = wasNotSent(error) ? "" : " (the last may have gone out; not sent again)";
        throw new TurnFailure(`sending failed after ${index} of ${group.length} messages${doubt}: ${why}`);
      }
    }
  }

  /** The message a reply answers: the given id (from this turn or history), else the newest trigger. */
  private findTarget(msgId: string | undefined): ChatMessage | undefined {
    const messages = this.batch.messages;
    if (msgId === undefined) {
      const newestTrigger = this.batch.triggerIds.at(-1);
      return messages.findLast((m) => m.messageId === newestTrigger) ?? messages.at(-1);
    }
    return (
      messages.find((m) => m.messageId === msgId) ??
      this.deps.messages.findByMessageId(this.batch.sessionId, msgId)
    );
  }

  /** Waits up to `seconds` (capped) for the session's next messages, which join this turn. */
  private async wait(seconds: number): Promise<string> {
    const deadline = Date.now() + Math.min(seconds, MAX_WAIT_SECONDS) * 1000;
    while (Date.now() < deadline && !this.signal.aborted) {
      const arrived = this.absorb();
      if (arrived) return `新消息：\n${arrived.map((m) => this.newLine(m)).join("\n")}`;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(0, deadline - Date.now()))));
    }
    return "等待结束，没有新消息。";
  }

  /** Takes the session's waiting batches into this turn (bounded); returns the new messages it kept, if any arrived. */
  private absorb(): ChatMessage[] | undefined {
    const merged = this.absorbInto(this.batch);
    if (!merged) return undefined;
    const before = new Set(this.batch.messages);
    this.batch = merged;
    this.journal.running(merged);
    return merged.messages.filter((message) => !before.has(message));
  }

  private newLine(message: ChatMessage): string {
    const identity = this.settings.identity;
    const segments = stripLeadingMention(message.segments, message.selfId, [
      identity.name,
      ...identity.aliases,
    ]);
    return formatMessageLine(message, this.settings.clock.time, {
      withId: true,
      segments,
      selfName: identity.name,
    });
  }

  /** Resolves what the batch's newest quoting message quotes, for realtime turns only. */
  private async resolveQuote(): Promise<void> {
    const message = findQuoteMessage(this.batch.messages);
    if (message === this.quoteMessage) return;
    this.quoteMessage = message;
    this.quoteBlock = message ? await this.deps.quotes.blockFor(message, this.replyId) : undefined;
  }

  private chat(): TurnPromptInput["chat"] {
    const first = this.batch.requestedBy ?? this.batch.messages[0]!;
    return {
      platform: first.platform,
      isGroup: first.chatType === "group",
      peerId: first.groupId ?? first.userId,
    };
  }

  private promptInput(): TurnPromptInput {
    return {
      identity: this.settings.identity,
      chat: this.chat(),
      historyLines: this.historyLines(),
      newLines: this.batch.messages.map((message) => this.newLine(message)),
      omittedCount: this.batch.omitted?.messageIds.length ?? 0,
      quoteBlock: this.quoteBlock,
      systemParts: this.systemParts,
      enrichments: this.enrichments,
      now: Date.now(),
      clock: this.settings.clock,
    };
  }

  /**
   * The history shown with this turn's batch, read once per batch: the planner and the
   * replyer see the same history, and the replyer does not re-read and re-render it.
   */
  private historyLines(): string[] {
    if (this.history?.batch === this.batch) return this.history.lines;
    const { history } = this.settings;
    const stored = withoutNewest(
      this.deps.messages.recent({
        sessionId: this.batch.sessionId,
        limit: history.maxMessages + this.batch.messages.length,
      }),
      this.batch.messages,
    );
    const lines = boundedHistory(
      stored.map((message) =>
        formatMessageLine(message, this.settings.clock.time, { selfName: this.settings.identity.name }),
      ),
      history.maxMessages,
      history.maxChars,
    );
    this.history = { batch: this.batch, lines };
    return lines;
  }
}

/**
 * History without this turn's own messages. Platform ids are reused (NapCat's after a
 * restart), so only the newest stored copy of each of them is dropped.
 */
function withoutNewest(stored: ChatMessage[], current: ChatMessage[]): ChatMessage[] {
  const key = (message: ChatMessage) => `${message.messageId}|${message.userId}|${message.time}`;
  const remaining = new Map<string, number>();
  for (const message of current) remaining.set(key(message), (remaining.get(key(message)) ?? 0) + 1);
  const kept: ChatMessage[] = [];
  for (let i = stored.length - 1; i >= 0; i--) {
    const message = stored[i]!;
    const left = remaining.get(key(message)) ?? 0;
    if (left > 0) remaining.set(key(message), left - 1);
    else kept.push(message);
  }
  return kept.reverse();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
