import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import { clip } from "../util/values.ts";
import type { Batch } from "./batch.ts";
import { stripLeadingMention } from "./triggers.ts";

/** Enough of the triggering messages to recognise them in the console's turn list. */
const TRIGGER_TEXT_MAX = 200;

/** The data of a batch's `turn.started` event: its messages, and the trigger text the turn list shows. */
export function turnStartedData(batch: Batch): Record<string, unknown> {
  const text = triggerText(
    [...batch.messages, ...(batch.requestedBy ? [batch.requestedBy] : [])],
    batch.triggerIds,
  );
  return {
    kind: batch.kind,
    messageIds: batch.messages.map((m) => m.messageId),
    triggerIds: batch.triggerIds,
    ...(text && { triggerText: text }),
  };
}

/**
 * `name: text` of each triggering message, without the mention that addressed the bot,
 * clipped; empty when nothing triggered (digests).
 */
export function triggerText(messages: ChatMessage[], triggerIds: string[]): string {
  const wanted = new Set(triggerIds);
  const lines: string[] = [];
  for (const message of messages) {
    if (!wanted.delete(message.messageId)) continue;
    const text = renderSegments(stripLeadingMention(message.segments, message.selfId, [])).trim();
    lines.push(`${message.senderName}: ${text}`);
  }
  return clip(lines.join("\n"), TRIGGER_TEXT_MAX);
}
