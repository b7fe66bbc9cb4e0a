import { stripLeadingMention } from "../chat/triggers.ts";
import type { CommandRegistry } from "../components/command-registry.ts";
import type { CommandComponent, CommandMatch } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
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
  logger: Logger;
}

/**
 * Answers commands before and without the model. A message whose text (after a leading
 * mention of the bot) matches a command active in its session is the command's alone: it is
 * stored like any message but never reaches the agent. Commands run outside the session
 * queue, so `/approve` gets through while a turn waits for it.
 */
export class CommandDispatcher {
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
    const call = this.deps.contexts.forMessage(message, { signal: new AbortController().signal });
    let answer: Awaited<ReturnType<CommandComponent["invoke"]>>;
    if (command.adminOnly && !admin) {
      this.deps.logger.info(
        { command: command.fullName, platform: message.platform, userId: message.userId },
        "admin command refused: the sender is not in bot.admins",
      );
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
}

/** The text a command is matched against: the text segments after a leading mention, trimmed. */
function commandText(message: ChatMessage, names: string[]): string {
  let text = "";
  for (const segment of stripLeadingMention(message.segments, message.selfId, names)) {
    if (segment.type === "text") text += segment.data.text;
  }
  return text.trim();
}
