import { wasNotSent } from "../adapters/types.ts";
import type { Selection } from "../components/plugin-options.ts";
import type { SessionRef } from "../components/types.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { JsonSchema } from "../sdk/types.ts";
import type { ReplyExtensionRunner } from "./extension-runner.ts";
import type { Outbox, SessionOrigin } from "./outbox.ts";
import { type OutgoingReply, textReplies } from "./reply-group.ts";
import type { ReplyPlan, ReplyWriting } from "./reply-plan.ts";
import { splitText } from "./split-text.ts";

export interface ReplyStageDeps {
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  outbox: Outbox;
  /** Reply extensions (seeds 000/001): `plugin_options` of the reply tool, prepare and before_send. */
  extensions: ReplyExtensionRunner;
  monitor: Monitor;
}

/** One turn's replies: which turn, its abort signal and the message size it splits at. */
export interface ReplyTurn {
  replyId: string;
  sessionId: string;
  signal: AbortSignal;
  textChunkLimit: number;
}

/** A reply that cannot be written or sent; its message is the turn's one-line reason. */
export class ReplyFailure extends Error {}

/**
 * The reply stage (DESIGN §1): turns a planner's reply plan into sent messages — extension
 * prepare → replyer → split → before_send → outbox.
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

  constructor(
    private readonly deps: ReplyStageDeps,
    private readonly turn: ReplyTurn,
  ) {}

  /** Writes the planned reply and sends it; nothing is sent when any step before the first send fails. */
  async write(plan: ReplyPlan, writing: ReplyWriting): Promise<void> {
    const { replyId, signal } = this.turn;
    const extensions = this.deps.extensions.chain(
      { replyId, callId: plan.callId, target: plan.target, signal },
      plan.extensions,
    );
    const extraPrompts = await extensions.prepare();
    await writing.generating(extraPrompts);
    const prompt = await writing.prompt(extraPrompts);
    const written = await this.deps.llm.generate({
      task: "replyer",
      messages: prompt,
      signal,
      replyId,
      sessionId: this.turn.sessionId,
    });
    this.deps.monitor.emit({
      type: "replyer.generated",
      replyId,
      sessionId: this.turn.sessionId,
      data: {
        model: `${written.provider}/${written.model}`,
        provider: written.provider,
        latencyMs: written.latencyMs,
        usage: written.usage,
        finishReason: written.finishReason,
        text: written.text,
        prompt,
      },
    });
    const chunks = this.split(written.text);
    if (chunks.length === 0) throw new ReplyFailure("replyer returned no text");
    // Every failure before this point sends nothing: the group is complete before the first send.
    const group = await extensions.beforeSend(written.text.trim(), chunks);
    await this.send(plan.origin, group, plan.quote ? plan.target.messageId : undefined);
  }

  /** The text as messages of at most the turn's chunk limit. */
  split(text: string): string[] {
    return splitText(text, this.turn.textChunkLimit);
  }

  /** Sends plain text messages, none quoting (digests, summaries). */
  sendText(origin: SessionOrigin, chunks: string[]): Promise<void> {
    return this.send(origin, textReplies(chunks), undefined);
  }

  /**
   * Sends a reply's messages in order. The first quotes `quoteId` (the reply's set_quote); a
   * later one quotes the message sent before it when it asks to (`quote_previous`).
   */
  private async send(
    origin: SessionOrigin,
    group: OutgoingReply[],
    quoteId: string | undefined,
  ): Promise<void> {
    let previous: string | undefined;
    for (const [index, message] of group.entries()) {
      const quote = index === 0 ? quoteId : message.quotePrevious ? previous : undefined;
      const segments =
        quote === undefined
          ? message.segments
          : [{ type: "reply" as const, data: { id: quote } }, ...message.segments];
      try {
        const sent = await this.deps.outbox.send(origin, segments, this.turn.replyId, this.turn.signal);
        this.sentMessageIds.push(sent.messageId);
        previous = sent.messageId;
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        // OneBot has no idempotency key: a message that may have left is never sent again.
        const doubt = wasNotSent(error) ? "" : " (the last may have gone out; not sent again)";
        throw new ReplyFailure(`sending failed after ${index} of ${group.length} messages${doubt}: ${why}`);
      }
    }
  }
}
