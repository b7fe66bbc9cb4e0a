import { splitArguments } from "./builders.ts";
import type { CommandMatch } from "./types.ts";

/**
 * The match of a command whose words come from the config (`/summary`, `/总结`, `/forget`):
 * a word at the start of `text` (any case) followed by nothing, a space or a digit. A CJK
 * command has no word boundary before its argument: "/总结50" asks for 50; "/summarylater"
 * matches nothing.
 */
export function matchCommandWords(text: string, words: string[]): CommandMatch | undefined {
  for (const command of words) {
    if (!command || text.slice(0, command.length).toLowerCase() !== command.toLowerCase()) continue;
    const after = text.slice(command.length);
    if (after !== "" && !/^[\s\d#]/u.test(after)) continue;
    const rest = after.trim();
    return { command, args: splitArguments(rest), rest };
  }
  return undefined;
}
