import type { ChatMessage } from "../message/inbound.ts";

/** Messages handed to the agent together as one turn's new input. */
export interface Batch {
  kind: "realtime" | "digest";
  sessionId: string;
  /** In arrival order. */
  messages: ChatMessage[];
  /** Ids of the messages in `messages` that triggered the bot. */
  triggerIds: string[];
}

/** Joins batches that waited for the same turn into one, keeping arrival order. */
export function mergeBatches(batches: Batch[]): Batch {
  const first = batches[0];
  if (!first) throw new Error("mergeBatches needs at least one batch");
  if (batches.length === 1) return first;
  return {
    kind: batches.some((b) => b.kind === "realtime") ? "realtime" : "digest",
    sessionId: first.sessionId,
    messages: batches.flatMap((b) => b.messages),
    triggerIds: batches.flatMap((b) => b.triggerIds),
  };
}
