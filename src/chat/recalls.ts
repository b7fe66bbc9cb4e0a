import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { MessageStore } from "../store/types.ts";
import type { Batch } from "./batch.ts";

/** Recalls remembered for batches still waiting for a turn; the oldest are forgotten beyond this. */
const REMEMBERED_RECALLS = 10_000;

/**
 * The messages recalled lately, by session and platform id: a batch still waiting for its
 * turn holds its messages as they arrived, so the turn asks here before reading them.
 */
export class RecalledMessages {
  /** `sessionId|messageId`, oldest first. */
  readonly #keys = new Set<string>();

  add(sessionId: string, messageId: string): void {
    const key = `${sessionId}|${messageId}`;
    this.#keys.delete(key);
    this.#keys.add(key);
    if (this.#keys.size > REMEMBERED_RECALLS) {
      const oldest = this.#keys.values().next().value;
      if (oldest !== undefined) this.#keys.delete(oldest);
    }
  }

  has(message: ChatMessage): boolean {
    return message.recalledAt !== undefined || this.#keys.has(`${message.sessionId}|${message.messageId}`);
  }

  /**
   * The batch without its recalled messages (the same object when none was), or undefined when
   * nothing is left to answer: every trigger it had, or every message, was recalled.
   */
  without(batch: Batch): Batch | undefined {
    const messages = batch.messages.filter((message) => !this.has(message));
    if (messages.length === batch.messages.length) return batch;
    const kept = new Set(messages.map((message) => message.messageId));
    const triggerIds = batch.triggerIds.filter((id) => kept.has(id));
    const nothingLeft = batch.kind === "realtime" ? triggerIds.length === 0 : messages.length === 0;
    if (nothingLeft && batch.kind !== "summary") return undefined;
    return { ...batch, messages, triggerIds };
  }
}

export interface RecallDeps {
  messages: Pick<MessageStore, "markRecalled">;
  recalled: RecalledMessages;
  /** Running turns that read the message leave it out, or stop when it was all they answered. */
  turns: { recalled(sessionId: string, messageId: string): void };
  /** Long-term memory forgets what it learned only from the message. */
  memory: { forgetMessage(sessionId: string, messageId: string): Promise<void> };
  logger: Logger;
}

/**
 * What a recall (撤回) does: the message is marked in the store (kept for the console, shown to
 * models without its content), batches not yet read leave it out, running turns drop it, and
 * memory forgets it.
 */
export function recallMessage(deps: RecallDeps, sessionId: string, messageId: string): void {
  deps.recalled.add(sessionId, messageId);
  deps.turns.recalled(sessionId, messageId);
  void deps.memory.forgetMessage(sessionId, messageId);
  deps.messages.markRecalled(sessionId, messageId, Date.now()).then(
    (marked) => deps.logger.info({ sessionId, messageId, stored: marked > 0 }, "message recalled"),
    (error: unknown) => {
      deps.logger.warn(
        { err: error, sessionId, messageId },
        "could not mark a recalled message in the store",
      );
    },
  );
}
