import type { SelectedExtension, Selection } from "../components/plugin-options.ts";
import type { SessionRef } from "../components/types.ts";
import { promptRecord } from "../llm/prompt-record.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { JsonSchema } from "../sdk/types.ts";
import { clip } from "../util/values.ts";
import type { ReplyExtensionChain, ReplyExtensionRunner } from "./extension-runner.ts";
import { type GuardedReply, guardReply } from "./outbound-guard.ts";
import type { Outbox, SessionOrigin } from "./outbox.ts";
import { textReplies } from "./reply-group.ts";
import type { ReplyDelivery, ReplyPlan, ReplyWriting } from "./reply-plan.ts";
import { ReplyFailure, ReplySender, type SendingTurn, StreamedSends } from "./reply-sender.ts";
import { splitText } from "./split-text.ts";
import type { TypingDelaySettings } from "./typing-delay.ts";

export interface ReplyStageDeps {
  outbox: Outbox;
  /** Reply extensions: `plugin_options` of the reply tool, prepare and before_send. */
  extensions: ReplyExtensionRunner;
  /** `chat.typingDelay`, read per turn. */
  typingDelay: () => TypingDelaySettings;
  /** `chat.mentionAll` in a session, read per turn. */
  mentionAll: (sessionId: string) => boolean;
  monitor: Monitor;
  logger: Logger;
}

/** What became of a reply: sent, or not sent because the outbound guard dropped it (the reason). */
export type ReplyResult = { sent: true } | { silent: string };

/** One turn's replies: which turn, its model calls, its abort signal and the message size it splits at. */
export interface ReplyTurn {
  /** The turn's own way to the models (its budgets are checked before each call). */
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  replyId: string;
  sessionId: string;
  signal: AbortSignal;
  textChunkLimit: number;
  /**
   * For a turn nobody asked for: why `text` must not be sent (it may first wait for the chat to
   * settle), or undefined when it may go. Such a turn's reply is written whole before it leaves.
   */
  holdBack?: (text: string) => Promise<string | undefined>;
}

/**
 * The reply stage: turns a planner's reply plan into sent messages — extension
 * prepare → replyer (streamed) → split → before_send → outbox.
 */
export class ReplyStage {
  constructor(private readonly deps: ReplyStageDeps) {}

  /** The reply tool's `plugin_options` schema for the session, or undefined when no extension applies. */
  optionsSchema(session: SessionRef): JsonSchema | undefined {
    return this.deps.extensions.optionsSchema(session);
  }

  /** Reads the planner's `plugin_options` against the extensions active in the session. */
  readOptions(pluginOptions: unknown, session: SessionRef): Selection {
    return this.deps.extensions.select(pluginOptions, session);
  }

  forTurn(turn: ReplyTurn): TurnReplies {
    return new TurnReplies(this.deps, turn);
  }
}

/** What one turn sends; `sentMessageIds` lists every message that left, in order. */
export class TurnReplies {
  readonly sentMessageIds: string[] = [];
  /** Single mode: the extensions whose `prepare` already ran in this turn. */
  private readonly prepared = new Set<string>();

  constructor(
    private readonly deps: ReplyStageDeps,
    private readonly turn: ReplyTurn,
  ) {}

  /**
   * Writes the planned reply with the replyer and sends it. Without reply extensions each
   * message leaves as soon as the streamed answer has completed it; with them, nothing is
   * sent before the whole group has passed `before_send` (it may change any of it), and nothing at all
   * when a step before the first send fails. That answer is not streamed: nothing could use
   * it early, and a plain request costs less CPU. The outbound guard sees the text first.
   */
  async write(plan: ReplyPlan, writing: ReplyWriting): Promise<ReplyResult> {
    const { replyId, signal } = this.turn;
    const extensions = this.chain(plan, plan.extensions);
    const extraPrompts = await extensions.prepare();
    await writing.generating(extraPrompts);
    const prompt = await writing.prompt(extraPrompts);
    const sender = this.sender(plan);
    const early =
      plan.extensions.length === 0 && !this.turn.holdBack && !writing.deliver
        ? new StreamedSends(sender, this.turn.textChunkLimit)
        : undefined;
    let written: LlmResult;
    try {
      written = await this.turn.llm.generate({
        task: "replyer",
        messages: prompt,
        imagesOnlyIfAccepted: true,
        signal,
        replyId,
        sessionId: this.turn.sessionId,
        ...(early ? { stream: early } : {}),
      });
    } catch (error) {
      if (!early || early.dispatched === 0) throw error;
      await early.settled().catch(() => {});
      const why = error instanceof Error ? error.message : String(error);
      throw new ReplyFailure(
        `the replyer's answer broke off after ${this.sentMessageIds.length} message(s) were sent; the rest is not sent: ${why}`,
      );
    }
    this.deps.monitor.emit({
      type: "replyer.generated",
      replyId,
      sessionId: this.turn.sessionId,
      data: {
        model: `${written.provider}/${written.model}`,
        provider: written.provider,
        latencyMs: written.latencyMs,
        firstTokenMs: written.firstTokenMs ?? null,
        usage: written.usage,
        finishReason: written.finishReason,
        text: written.text,
        prompt: promptRecord(prompt),
      },
    });
    if (written.text.trim() === "") throw new ReplyFailure("replyer returned no text");
    if (early) return this.result(await early.finish(), written.text);
    const guarded = await this.cleared(written.text);
    if ("dropped" in guarded) return this.result(guarded, written.text);
    if (await this.delivered(sender, guarded.text, writing.deliver)) return { sent: true };
    const group = await extensions.beforeSend(guarded.text, this.split(guarded.text));
    await sender.sendAll(group);
    return { sent: true };
  }

  /**
   * Single mode (`chat.mode: single`): the planner's reply call carries the text itself. The
   * selected extensions' `prepare` runs once per turn; extra requirements it returns come back
   * (nothing is sent) for the planner to rewrite the text in its next round. Otherwise the
   * text goes through the outbound guard and `before_send` and is sent.
   */
  async send(
    plan: ReplyPlan,
    text: string,
    deliver?: ReplyDelivery,
  ): Promise<ReplyResult | { requirements: string[] }> {
    const fresh = plan.extensions.filter((step) => !this.prepared.has(step.extension.fullName));
    const requirements = await this.chain(plan, fresh).prepare();
    for (const step of fresh) this.prepared.add(step.extension.fullName);
    if (requirements.length > 0) return { requirements };
    const guarded = await this.cleared(text);
    if ("dropped" in guarded) return this.result(guarded, text);
    const sender = this.sender(plan);
    if (await this.delivered(sender, guarded.text, deliver)) return { sent: true };
    const group = await this.chain(plan, plan.extensions).beforeSend(guarded.text, this.split(guarded.text));
    await sender.sendAll(group);
    return { sent: true };
  }

  /** Sends the text delivered another way (spoken) as one message; false when it is to go as text. */
  private async delivered(
    sender: ReplySender,
    text: string,
    deliver: ReplyDelivery | undefined,
  ): Promise<boolean> {
    const segments = deliver && (await deliver(text));
    if (segments === undefined) return false;
    await sender.send({ segments, quotePrevious: false });
    return true;
  }

  /** The outbound guard's verdict, then, for an unasked turn, the governor's. */
  private async cleared(text: string): Promise<GuardedReply> {
    const guarded = guardReply(text);
    if ("dropped" in guarded || !this.turn.holdBack) return guarded;
    const held = await this.turn.holdBack(guarded.text);
    return held === undefined ? guarded : { dropped: held };
  }

  /** A guarded reply's result; a dropped one is logged with what the model wrote. */
  private result(guarded: GuardedReply, written: string): ReplyResult {
    if (!("dropped" in guarded)) return { sent: true };
    this.deps.logger.info(
      { replyId: this.turn.replyId, sessionId: this.turn.sessionId, text: clip(written, 200) },
      `reply not sent: ${guarded.dropped}`,
    );
    return { silent: guarded.dropped };
  }

  /** The text as messages of at most the turn's chunk limit. */
  split(text: string): string[] {
    return splitText(text, this.turn.textChunkLimit);
  }

  /**
   * Sends one message a built-in tool made (a sticker): journalled like every send, so a
   * restart never sends it again, but not the turn's reply, which may still follow.
   */
  sendMessage(origin: SessionOrigin, segments: Segment[]): Promise<ChatMessage> {
    return this.deps.outbox.send(origin, segments, this.turn.replyId, this.turn.signal);
  }

  /** Pokes a member back (the `poke` tool); resolves with the platform action used. */
  poke(origin: SessionOrigin, userId: string): Promise<string> {
    this.turn.signal.throwIfAborted();
    return this.deps.outbox.poke(origin, userId, this.turn.replyId);
  }

  /** Sends plain text messages, none quoting (digests, summaries). */
  sendText(origin: SessionOrigin, chunks: string[]): Promise<void> {
    return new ReplySender(this.sending(), origin, undefined).sendAll(textReplies(chunks));
  }

  private chain(plan: ReplyPlan, selected: SelectedExtension[]): ReplyExtensionChain {
    const { replyId, signal } = this.turn;
    return this.deps.extensions.chain(
      { replyId, callId: plan.callId, target: plan.target, signal },
      selected,
    );
  }

  private sender(plan: ReplyPlan): ReplySender {
    return new ReplySender(this.sending(), plan.origin, plan.quote ? plan.target.messageId : undefined);
  }

  private sending(): SendingTurn {
    const { replyId, signal } = this.turn;
    return {
      outbox: this.deps.outbox,
      replyId,
      signal,
      sentMessageIds: this.sentMessageIds,
      typingDelay: this.deps.typingDelay(),
      mentionAll: this.deps.mentionAll(this.turn.sessionId),
    };
  }
}
