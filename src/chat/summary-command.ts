import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { MessageStore } from "../store/types.ts";
import type { Batch } from "./batch.ts";
import type { SummarySettings } from "./config.ts";
import { stripLeadingMention } from "./triggers.ts";

const LEADING_COUNT = /^\d+/;

/**
 * How many messages a command text asks to summarise, or undefined when it is not a summary
 * command. `/summary`, `/summary 50`, `/总结50` and `/总结 最近聊了啥` all match; the count
 * defaults to `count` and is capped at `maxCount`. `/summarylater` does not match.
 */
export function parseSummaryCommand(text: string, settings: SummarySettings): number | undefined {
  const trimmed = text.trim();
  for (const command of settings.commands) {
    if (!command || trimmed.slice(0, command.length).toLowerCase() !== command.toLowerCase()) continue;
    const rest = trimmed.slice(command.length);
    // A CJK command has no word boundary before its count: "/总结50" asks for 50.
    if (rest !== "" && !/^[\s\d]/u.test(rest)) continue;
    const asked = Number(LEADING_COUNT.exec(rest.trim())?.[0] ?? 0);
    return Math.min(asked > 0 ? asked : settings.count, settings.maxCount);
  }
  return undefined;
}

/**
 * The `/summary` command: summarises the session's last N stored messages on demand. A small
 * module of its own, called from the chat stage, so a command registry can take it over.
 */
export class SummaryCommand {
  constructor(
    private readonly settings: () => SummarySettings,
    /** The bot's name and aliases: "@紬 /总结" is a command too. */
    private readonly names: () => string[],
    private readonly store: MessageStore,
    private readonly submit: (batch: Batch) => void,
  ) {}

  /** Starts a summary when `message` is the command; returns whether it was. */
  handle(message: ChatMessage): boolean {
    if (message.fromSelf) return false;
    const segments = stripLeadingMention(message.segments, message.selfId, this.names());
    const count = parseSummaryCommand(renderSegments(segments), this.settings());
    if (count === undefined) return false;
    this.submit({
      kind: "summary",
      sessionId: message.sessionId,
      messages: this.transcript(message, count),
      triggerIds: [message.messageId],
      requestedBy: message,
    });
    return true;
  }

  /** The `count` stored messages before the command, oldest first; taken now, not when the turn runs. */
  private transcript(command: ChatMessage, count: number): ChatMessage[] {
    const stored = this.store.recent({ sessionId: command.sessionId, limit: count + 1 });
    const index = stored.findLastIndex(
      (m) => m.messageId === command.messageId && m.userId === command.userId && m.time === command.time,
    );
    if (index >= 0) stored.splice(index, 1);
    return stored.slice(-count);
  }
}
