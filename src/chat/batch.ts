import type { ChatMessage } from "../message/inbound.ts";

/**
 * Why a batch reaches the agent: `realtime`, people addressed the bot; `digest`, the bot reads
 * along with chatter nobody addressed to it; `summary`, someone asked for a summary.
 */
export type BatchKind = "realtime" | "digest" | "summary";

/** Why a batch nobody addressed became a turn: the score of its message and the threshold it passed. */
export interface UnaskedJoin {
  score: number;
  threshold: number;
}

/** Messages handed to the agent together as one turn's new input. */
export interface Batch {
  kind: BatchKind;
  sessionId: string;
  /** In arrival order. Digest and summary batches: the chat to read (a summary's may be empty). */
  messages: ChatMessage[];
  /** Ids of the messages in `messages` that triggered the bot. */
  triggerIds: string[];
  /** Summary batches: the command message that asked for the summary. */
  requestedBy?: ChatMessage;
  /**
   * Messages left out to keep the turn within `chat.realtime.maxTurn*` (batch-bounds.ts).
   * They stay stored; the prompt says how many are missing.
   */
  omitted?: OmittedMessages;
  /**
   * Set when nobody addressed the bot and participation chose to join (src/participation):
   * the planner is told it was not addressed, and the governor clears what it sends.
   */
  unasked?: UnaskedJoin;
  /** Set when the turn's chat or user neared a budget (chat/turn-limits.ts): it runs on the economy models. */
  economy?: Economy;
}

/** Why a turn runs on `llm.models.economy`: the budget nearest its end and how much of it is spent. */
export interface Economy {
  limit: string;
  /** Spent / budget, at least limits.economyAt. */
  share: number;
}

export interface OmittedMessages {
  messageIds: string[];
  /** Those of `messageIds` that triggered the bot: the turn answers them as part of the whole. */
  triggerIds: string[];
}

/** Joins batches that waited for the same turn into one, keeping arrival order. */
export function mergeBatches(batches: Batch[]): Batch {
  const first = batches[0];
  if (!first) throw new Error("mergeBatches needs at least one batch");
  if (batches.length === 1) return first;
  return {
    kind: batches.some((b) => b.kind === "realtime") ? "realtime" : first.kind,
    sessionId: first.sessionId,
    messages: batches.flatMap((b) => b.messages),
    triggerIds: batches.flatMap((b) => b.triggerIds),
    // Once anyone addressed the bot, the turn answers them: it is no longer unasked.
    ...(batches.every((b) => b.unasked) && { unasked: first.unasked }),
    ...(first.economy && { economy: first.economy }),
    ...(batches.some((b) => b.omitted) && {
      omitted: {
        messageIds: batches.flatMap((b) => b.omitted?.messageIds ?? []),
        triggerIds: batches.flatMap((b) => b.omitted?.triggerIds ?? []),
      },
    }),
  };
}
