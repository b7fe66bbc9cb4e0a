import { HOST_COMMANDS_OWNER } from "./command-registry.ts";
import { matchCommandWords } from "./command-words.ts";
import type { CommandComponent } from "./types.ts";

/** A command of the bot itself (`tsumugi.<name>`), answered in every kind of chat. */
export interface HostCommand {
  name: string;
  description: string;
  /** The words it answers to, read on every message: with none it matches nothing and /help leaves it out. */
  words: () => string[];
  /** What /help shows after the words, e.g. "[条数]". */
  usage: string;
  adminOnly?: boolean;
  invoke: CommandComponent["invoke"];
}

export function hostCommand(command: HostCommand): CommandComponent {
  const { name, words } = command;
  return {
    kind: "command",
    pluginId: HOST_COMMANDS_OWNER,
    name,
    fullName: `${HOST_COMMANDS_OWNER}.${name}`,
    description: command.description,
    scope: { chatScope: "all" },
    adminOnly: command.adminOnly ?? false,
    get synopsis() {
      const listed = words().filter(Boolean);
      return listed.length > 0 ? `${listed.join(" | ")} ${command.usage}`.trim() : "";
    },
    match: (text) => matchCommandWords(text.trim(), words()),
    invoke: command.invoke,
  };
}
