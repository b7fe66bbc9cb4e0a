import type { Batch } from "../chat/batch.ts";
import { stripLeadingMention } from "../chat/triggers.ts";
import type { MemberNames } from "../context/member-names.ts";
import { formatMessageLine } from "../context/message-line.ts";
import type { QuoteContext } from "../context/quote-context.ts";
import { findQuoteMessage } from "../context/quote-source.ts";
import type { LlmImage, LlmResult } from "../llm/types.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import { type MemoryScene, sceneAround } from "../memory/visibility.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PictureDescriptions } from "../message/picture-text.ts";
import { renderSegments } from "../message/render.ts";
import type { Segment } from "../message/segment.ts";
import type { SessionOrigin } from "../reply/outbox.ts";
import type { TurnReplies } from "../reply/reply-stage.ts";
import type { MessageStore } from "../store/types.ts";
import { type HistoryWindows, mostHistoryMessages } from "./history-window.ts";
import type { TurnPromptInput } from "./prompt.ts";
import type { AgentSettings } from "./settings.ts";
import type { TurnJournal } from "./turn-journal.ts";
import type { TurnPluginScope } from "./turn-plugins.ts";

/** One turn's pictures: their descriptions, and the new messages' pictures for a model that sees. */
export interface TurnPictureView extends PictureDescriptions {
  /** The pictures of these messages as images (none when no planner or replyer model accepts images). */
  look(segmentLists: Segment[][]): Promise<LlmImage[]>;
}

export interface TurnContextDeps {
  messages: MessageStore;
  /** The quote block (quote resolution) for a realtime turn's quoting message; never rejects. */
  quotes: Pick<QuoteContext, "blockFor">;
  /** Names for mentions that carry only an id, from the messages seen or the platform. */
  names: Pick<MemberNames, "namesFor">;
  /** Where each session's history window starts (it moves in steps, for prompt caching). */
  historyWindows: HistoryWindows;
  /** What is remembered about the new messages' senders and the group (the memory section). */
  memory: Pick<MemoryService, "recallForTurn">;
  /** The group's way of talking as a prompt section: empty outside groups and when nothing is learned. */
  expressions: (sessionId: string) => Promise<string>;
  /** Passages of the knowledge base the chat may read that answer the new messages (knowledge section). */
  knowledge: (turn: { replyId: string; sessionId: string; messages: ChatMessage[] }) => Promise<string>;
}

/** One turn: who it is, what it started with, and the parts it works with. */
export interface TurnContextParts {
  replyId: string;
  batch: Batch;
  /** Takes the session's batches that arrived meanwhile (SessionRunner). */
  absorbInto: (current: Batch) => Batch | undefined;
  settings: AgentSettings;
  signal: AbortSignal;
  journal: TurnJournal;
  replies: TurnReplies;
  plugins: TurnPluginScope;
  /** This turn's picture descriptions, shown wherever a described picture appears. */
  pictures: TurnPictureView;
  deps: TurnContextDeps;
}

/**
 * One turn, as the planner, its tools and the transcript reader take it: its identity, its
 * batch (growing as messages arrive), signal, settings, journal, replies, plugins and pictures;
 * the history and quote it shows the models, its model calls and the messages it sent.
 */
export class TurnContext {
  private readonly rounds: Array<{ toolCalls: string[]; text: string; model: string; latencyMs: number }> =
    [];
  private history: { batch: Batch; lines: string[] } | undefined;
  /** The stored messages before this turn's batch, read once per batch. */
  private stored: { batch: Batch; messages: ChatMessage[] } | undefined;
  /** The message whose quote `quoteBlock` renders; resolved again only when a newer one arrives. */
  private quoteMessage: ChatMessage | undefined;
  private quoteBlock: string | undefined;
  /** The new messages' pictures, for a planner or replyer model that accepts images. */
  private images: LlmImage[] = [];
  /** Names of the members the turn's messages mention without a name. */
  private mentionNames: (userId: string) => string | undefined = () => undefined;
  /** The memory section of both prompts (after the chat), recalled for the new messages. */
  private memories = "";
  /** The group's way of talking (system prompt) and what the bot said here lately (replyer), per turn. */
  private expressions = "";
  private ownRecent = "";
  /** The knowledge section of both prompts (after the memories), retrieved for the new messages. */
  private knowledge = "";
  /** Enricher sections for the planner's request (after the chat), gathered once per turn. */
  enrichments: string[] = [];
  /** The channel's system prompt parts, read once per turn. */
  systemParts: string[] = [];
  /** Messages taken in since the planner's last call: no planner call has read them yet. */
  private unread: ChatMessage[] = [];
  /** A message was recalled since the planner's prompt was built: the next round builds it again. */
  private recallSeen = false;

  readonly replyId: string;
  batch: Batch;
  readonly settings: AgentSettings;
  readonly signal: AbortSignal;
  readonly replies: TurnReplies;
  /** What plugins add to this turn: tools, hooks, enrichers, channel prompt parts. */
  readonly plugins: TurnPluginScope;
  readonly pictures: TurnPictureView;
  private readonly absorbInto: (current: Batch) => Batch | undefined;
  private readonly journal: TurnJournal;
  private readonly deps: TurnContextDeps;

  constructor(parts: TurnContextParts) {
    this.replyId = parts.replyId;
    this.batch = parts.batch;
    this.settings = parts.settings;
    this.signal = parts.signal;
    this.replies = parts.replies;
    this.plugins = parts.plugins;
    this.pictures = parts.pictures;
    this.absorbInto = parts.absorbInto;
    this.journal = parts.journal;
    this.deps = parts.deps;
  }

  /** Records one model call for the turn's stored detail. */
  recordCall(result: LlmResult, toolCalls: string[]): void {
    this.rounds.push({
      toolCalls,
      text: result.text,
      model: `${result.provider}/${result.model}`,
      latencyMs: result.latencyMs,
    });
  }

  detail(): Record<string, unknown> {
    return {
      rounds: this.rounds,
      sentMessageIds: this.replies.sentMessageIds,
      sentByTools: this.plugins.sentByTools,
      // Left out to keep the prompt bounded; the turn answered the batch as a whole.
      ...(this.batch.omitted && { omitted: this.batch.omitted }),
    };
  }

  /**
   * Takes the session's waiting batches into this turn (bounded); resolves with the new messages
   * it kept, if any arrived, once the journal holds them (a crash after it runs them again).
   */
  async absorb(): Promise<ChatMessage[] | undefined> {
    const merged = this.absorbInto(this.batch);
    if (!merged) return undefined;
    const before = new Set(this.batch.messages);
    this.batch = merged;
    const refusal = await this.journal.running(merged);
    // Another instance holds the session now: the turn stops (TurnRunner hands it over).
    if (refusal) throw refusal;
    const arrived = merged.messages.filter((message) => !before.has(message));
    this.unread.push(...arrived);
    return arrived.length > 0 ? arrived : undefined;
  }

  /**
   * Leaves a recalled message out of what the turn reads from now on: its batch, and the history
   * (read again, the message now shown as recalled). Returns true, leaving the batch as it was,
   * when nothing would be left to answer: the turn is to stop before it sends anything.
   */
  recalled(messageId: string): boolean {
    const read = [...this.batch.messages, ...(this.stored?.messages ?? [])];
    if (!read.some((message) => message.messageId === messageId)) return false;
    this.history = undefined;
    this.stored = undefined;
    this.recallSeen = true;
    const batch = this.batch;
    const messages = batch.messages.filter((message) => message.messageId !== messageId);
    if (messages.length === batch.messages.length) return false;
    const triggerIds = batch.triggerIds.filter((id) => id !== messageId);
    if (messages.length === 0 || (batch.triggerIds.length > 0 && triggerIds.length === 0)) return true;
    this.batch = { ...batch, messages, triggerIds };
    this.unread = this.unread.filter((message) => message.messageId !== messageId);
    return false;
  }

  /** Whether a message the turn may have shown was recalled since the last call; clears it. */
  takeRecalled(): boolean {
    const seen = this.recallSeen;
    this.recallSeen = false;
    return seen;
  }

  /** A planner call has read every message taken in so far (its prompt or a `wait` result showed them). */
  plannerRead(): void {
    this.unread = [];
  }

  /**
   * The triggers this turn took in that no planner call read, because the turn ended first
   * (`wait` then `no_reply` in one answer, the last round, a failure): a batch of their own,
   * for the session's next turn to answer.
   */
  unanswered(): Batch | undefined {
    const unread = new Set(this.unread);
    const messages = this.batch.messages.filter((message) => unread.has(message));
    const ids = new Set(messages.map((message) => message.messageId));
    const triggerIds = this.batch.triggerIds.filter((id) => ids.has(id));
    // An unasked turn was a chance to join, not a question owed an answer.
    if (triggerIds.length === 0 || this.batch.unasked) return undefined;
    return { kind: "realtime", sessionId: this.batch.sessionId, messages, triggerIds };
  }

  /** Where the turn's replies go: the requester, else the first message from someone else. */
  origin(): SessionOrigin {
    return (
      this.batch.requestedBy ??
      this.batch.messages.find((message) => !message.fromSelf) ??
      this.batch.messages[0]!
    );
  }

  /** The message a reply answers: the given id (from this turn or history), else the newest trigger. */
  async findTarget(msgId: string | undefined): Promise<ChatMessage | undefined> {
    const messages = this.batch.messages;
    if (msgId === undefined) {
      const newestTrigger = this.batch.triggerIds.at(-1);
      return messages.findLast((m) => m.messageId === newestTrigger) ?? messages.at(-1);
    }
    const found =
      messages.find((m) => m.messageId === msgId) ??
      (await this.deps.messages.findByMessageId(this.batch.sessionId, msgId));
    // A member never answers or quotes what its sender took back.
    return found?.recalledAt === undefined ? found : undefined;
  }

  /**
   * A message as the planner and the replyer read it, in history and new alike: with its
   * msg_id label and without a leading mention of the bot.
   */
  labelledLine(message: ChatMessage): string {
    const identity = this.settings.identity;
    const segments = stripLeadingMention(message.segments, message.selfId, [
      identity.name,
      ...identity.aliases,
    ]);
    return formatMessageLine(message, this.settings.clock.time, {
      withId: true,
      segments,
      nameOf: this.mentionNames,
      pictures: this.pictures.texts,
    });
  }

  /** A message as a digest or summary transcript line, and as the replyer's target. */
  line(message: ChatMessage): string {
    return formatMessageLine(message, this.settings.clock.time, {
      nameOf: this.mentionNames,
      pictures: this.pictures.texts,
    });
  }

  /**
   * What a realtime turn's prompt shows beyond the messages: descriptions of the pictures of
   * the new messages and the history window (newest first, so the caps leave the oldest
   * undescribed), the new messages' pictures themselves for a model that sees, then what the
   * batch's newest quoting message quotes.
   */
  async gatherContext(): Promise<void> {
    const batch = this.batch;
    const history = this.deps.historyWindows.candidates(
      batch.sessionId,
      await this.storedHistory(batch),
      messageKey,
      this.settings.history,
    );
    await this.pictures.describe(
      [...batch.messages, ...history].reverse().map((message) => message.segments),
      pointedAt(batch, history).map((message) => message.segments),
    );
    this.images = await this.pictures.look(
      batch.messages.filter((message) => !message.fromSelf).map((message) => message.segments),
    );
    this.mentionNames = await this.deps.names.namesFor([...batch.messages, ...history].reverse(), [
      ...history,
      ...batch.messages,
    ]);
    // Both are reads of a remote database on PostgreSQL: one round trip at once, not two in turn.
    [this.memories, this.expressions] = await Promise.all([
      this.deps.memory.recallForTurn({
        replyId: this.replyId,
        messages: batch.messages,
        participants: history.slice(-this.settings.history.maxMessages),
      }),
      this.deps.expressions(batch.sessionId),
    ]);
    this.ownRecent = await this.ownRecentSection(batch.sessionId);
    this.knowledge = await this.deps.knowledge({
      replyId: this.replyId,
      sessionId: batch.sessionId,
      messages: batch.messages,
    });
    const message = findQuoteMessage(batch.messages);
    if (message === this.quoteMessage) return;
    this.quoteMessage = message;
    this.quoteBlock = message
      ? await this.deps.quotes.blockFor(message, this.replyId, {
          pictures: this.pictures,
          nameOf: this.mentionNames,
        })
      : undefined;
  }

  /** The bot's latest messages in the chat (`chat.avoidRepeating` of them), as the own_recent section. */
  private async ownRecentSection(sessionId: string): Promise<string> {
    const count = this.settings.avoidRepeating;
    if (count === 0) return "";
    const recent = await this.deps.messages.recent({ sessionId, limit: OWN_RECENT_SCAN });
    const own = recent.filter((message) => message.fromSelf && message.notice === undefined).slice(-count);
    if (own.length === 0) return "";
    const lines = own.map((message) => `- ${renderSegments(message.segments).trim()}`);
    return this.settings.prompts.render("own_recent", { lines: lines.join("\n") });
  }

  /** The turn's chat and who is present in it, for the memory tools (src/memory/visibility.ts). */
  memoryScene(): Promise<MemoryScene> {
    return sceneAround(this.batch.messages, this.deps.messages, this.settings.history.maxMessages);
  }

  /** The name `userId` went by in this turn's messages or the history before them, newest first. */
  async nameOf(userId: string): Promise<string | undefined> {
    const seen = [...(await this.storedHistory(this.batch)), ...this.batch.messages];
    return seen.findLast((message) => message.userId === userId)?.senderName;
  }

  chat(): TurnPromptInput["chat"] {
    const first = this.batch.requestedBy ?? this.batch.messages[0]!;
    return {
      platform: first.platform,
      isGroup: first.chatType === "group",
      peerId: first.groupId ?? first.userId,
    };
  }

  async promptInput(): Promise<TurnPromptInput> {
    const batch = this.batch;
    const historyLines = await this.historyLines(batch);
    return {
      prompts: this.settings.prompts,
      identity: this.settings.identity,
      chat: this.chat(),
      historyLines,
      newLines: batch.messages.map((message) => this.labelledLine(message)),
      omittedCount: batch.omitted?.messageIds.length ?? 0,
      // Quote resolution: the quote block, then the quoting message itself.
      quoteBlock: this.quoteBlock && `${this.quoteBlock}\n${this.labelledLine(this.quoteMessage!)}`,
      systemParts: this.systemParts,
      enrichments: this.enrichments,
      unasked: batch.unasked !== undefined,
      memories: this.memories,
      expressions: this.expressions,
      ownRecent: this.ownRecent,
      knowledge: this.knowledge,
      images: this.images,
      now: Date.now(),
      clock: this.settings.clock,
    };
  }

  /**
   * The history shown with this turn's batch, read once per batch: the planner and the
   * replyer see the same history, and the replyer does not re-read and re-render it.
   */
  private async historyLines(batch: Batch): Promise<string[]> {
    if (this.history?.batch === batch) return this.history.lines;
    const stored = await this.storedHistory(batch);
    const entries = stored.map((message) => ({ key: messageKey(message), line: this.labelledLine(message) }));
    const lines = this.deps.historyWindows.select(batch.sessionId, entries, this.settings.history);
    this.history = { batch, lines };
    return lines;
  }

  /** The stored messages the history window is chosen from, oldest first. */
  private async storedHistory(batch: Batch): Promise<ChatMessage[]> {
    if (this.stored?.batch === batch) return this.stored.messages;
    const messages = withoutNewest(
      await this.deps.messages.recent({
        sessionId: batch.sessionId,
        limit: mostHistoryMessages(this.settings.history) + batch.messages.length,
      }),
      batch.messages,
    );
    this.stored = { batch, messages };
    return messages;
  }
}

/** The chat's newest messages searched for the bot's own: within what the recent-message cache keeps. */
const OWN_RECENT_SCAN = 64;

/**
 * History without this turn's own messages. Platform ids are reused (NapCat's after a
 * restart), so only the newest stored copy of each of them is dropped.
 */
function withoutNewest(stored: ChatMessage[], current: ChatMessage[]): ChatMessage[] {
  const remaining = new Map<string, number>();
  for (const message of current) {
    remaining.set(messageKey(message), (remaining.get(messageKey(message)) ?? 0) + 1);
  }
  const kept: ChatMessage[] = [];
  for (let i = stored.length - 1; i >= 0; i--) {
    const message = stored[i]!;
    const left = remaining.get(messageKey(message)) ?? 0;
    if (left > 0) remaining.set(messageKey(message), left - 1);
    else kept.push(message);
  }
  return kept.reverse();
}

/** Names a stored message across turns (platform ids alone are reused, see `withoutNewest`). */
function messageKey(message: ChatMessage): string {
  return `${message.messageId}|${message.userId}|${message.time}`;
}

/**
 * The messages a turn points at, newest first: its triggers (else, for a turn nobody asked
 * for, its newest message from someone else) and the message just before each in the chat.
 */
function pointedAt(batch: Batch, history: ChatMessage[]): ChatMessage[] {
  const triggers = new Set(batch.triggerIds);
  const chat = [
    ...new Map([...history, ...batch.messages].map((message) => [message.messageId, message])).values(),
  ];
  let pointed = batch.messages.filter((message) => triggers.has(message.messageId));
  if (pointed.length === 0) pointed = batch.messages.filter((message) => !message.fromSelf).slice(-1);
  const indexes = new Set<number>();
  for (const message of pointed) {
    const index = chat.findIndex((candidate) => candidate.messageId === message.messageId);
    if (index < 0) continue;
    indexes.add(index);
    if (index > 0) indexes.add(index - 1);
  }
  return [...indexes].sort((a, b) => b - a).map((index) => chat[index]!);
}
