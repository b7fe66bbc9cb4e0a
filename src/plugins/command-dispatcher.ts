import { stripLeadingMention } from "../chat/triggers.ts";
import type { CommandAdmission } from "../chat/turn-limits.ts";
import type { CommandRegistry } from "../components/command-registry.ts";
import type { CommandComponent, CommandMatch } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { userNamespace } from "../message/message-source.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { isAdmin } from "./admins.ts";
import type { CallContextFactory } from "./call-context.ts";

export interface CommandDispatcherDeps {
  commands: CommandRegistry;
  contexts: CallContextFactory;
  /** `bot.admins`: who may run admin-only commands (see admins.ts). */
  admins: () => string[];
  /** The bot's name and aliases: "@紬 /help" is a command too. */
  names: () => string[];
  /** The prompt templates in use: the refusal of an admin-only command, a command's failure. */
  templates: () => PromptTemplates;
  /**
   * Whether the command may run and answer now, counted in the sender's and the chat's turns
   * per minute as a turn is (chat/turn-limits.ts), and what to answer when not; every command
   * may when absent.
   */
  admitReply?: (message: ChatMessage) => Promise<CommandAdmission>;
  logger: Logger;
  /** The clock refusals are remembered by; the system's unless a test steps one. */
  now?: () => number;
}

/** A sender refused an admin command is told once in this long; asking again meanwhile gets no answer. */
export const REFUSAL_QUIET_MS = 10 * 60_000;
/** Senders whose refusal is remembered at once: the oldest is forgotten past this. */
const MAX_REFUSED = 10_000;

/**
 * Answers commands before and without the model. A message whose text (after a leading
 * mention of the bot) matches a command active in its session is the command's alone: it is
 * stored like any message but never reaches the agent. Commands run outside the session
 * queue, so `/approve` gets through while a turn waits for it.
 */
export class CommandDispatcher {
  /** Sender in a chat → until when their admin-command refusal stays unsaid again, oldest first. */
  readonly #refused = new Map<string, number>();

  constructor(private readonly deps: CommandDispatcherDeps) {}

  /** Starts the command the message is, if it is one; returns whether it was. */
  dispatch(message: ChatMessage): boolean {
    if (message.fromSelf || this.deps.commands.size === 0) return false;
    const text = commandText(message, this.deps.names());
    if (!text) return false;
    for (const command of this.deps.commands.visibleIn(message)) {
      const match = command.match(text);
      if (!match) continue;
      void this.run(command, match, message);
      return true;
    }
    return false;
  }

  private async run(command: CommandComponent, match: CommandMatch, message: ChatMessage): Promise<void> {
    const admin = isAdmin(message, this.deps.admins());
    const refused = command.adminOnly && !admin;
    const who = { command: command.fullName, platform: message.platform, userId: message.userId };
    if (refused && this.#refusedRecently(message)) {
      this.deps.logger.debug(who, "admin command refused again: not answered");
      return;
    }
    const admission: CommandAdmission = this.deps.admitReply
      ? await this.deps.admitReply(message)
      : { admitted: true };
    const call = this.deps.contexts.forMessage(message, { signal: new AbortController().signal });
    let answer: Awaited<ReturnType<CommandComponent["invoke"]>>;
    if (!admission.admitted) {
      answer = admission.notice;
    } else if (refused) {
      this.deps.logger.info(who, "admin command refused: the sender is not in bot.admins");
      answer = this.deps.templates().render("command_admin_only");
    } else {
      try {
        answer = await command.invoke(match, { ...call, isAdmin: admin });
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.deps.logger.warn(
          { command: command.fullName, sessionId: message.sessionId },
          `command failed: ${why}`,
        );
        answer = this.deps.templates().render("command_failed", { error: why });
      }
    }
    if (answer === undefined || answer === null || answer === "") return;
    try {
      await call.bot.send(call.event, answer);
    } catch (error) {
      this.deps.logger.warn({ command: command.fullName, err: error }, "could not send a command's answer");
    }
  }

  /** Whether the sender was refused an admin command in this chat lately; remembers this refusal when not. */
  #refusedRecently(message: ChatMessage): boolean {
    const now = (this.deps.now ?? Date.now)();
    for (const [key, until] of this.#refused) {
      if (until > now && this.#refused.size < MAX_REFUSED) break;
      this.#refused.delete(key);
    }
    const key = `${message.sessionId}|${userNamespace(message)}:${message.userId}`;
    if ((this.#refused.get(key) ?? 0) > now) return true;
    this.#refused.set(key, now + REFUSAL_QUIET_MS);
    return false;
  }
}

/** The text a command is matched against: the text segments after a leading mention, trimmed. */
function commandText(message: ChatMessage, names: string[]): string {
  let text = "";
  for (const segment of stripLeadingMention(message.segments, message.selfId, names)) {
    if (segment.type === "text") text += segment.data.text;
  }
  return text.trim();
}
