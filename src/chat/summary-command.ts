import { matchCommandWords } from "../components/command-words.ts";
import { hostCommand } from "../components/host-command.ts";
import type { CommandComponent } from "../components/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { MessageStore } from "../store/types.ts";
import type { Batch } from "./batch.ts";
import type { SummarySettings } from "./config.ts";

const LEADING_COUNT = /^\d+/;

/**
 * How many messages a command text asks to summarise, or undefined when it is not a summary
 * command. `/summary`, `/summary 50`, `/总结50` and `/总结 最近聊了啥` all match; the count
 * defaults to `count` and is capped at `maxCount`. `/summarylater` does not match.
 */
export function parseSummaryCommand(text: string, settings: SummarySettings): number | undefined {
  const match = matchCommandWords(text.trim(), settings.commands);
  return match && summaryCount(match.rest, settings);
}

function summaryCount(rest: string, settings: SummarySettings): number {
  const asked = Number(LEADING_COUNT.exec(rest)?.[0] ?? 0);
  return Math.min(asked > 0 ? asked : settings.count, settings.maxCount);
}

export interface SummaryCommandDeps {
  settings: () => SummarySettings;
  store: MessageStore;
  /** Starts the summary turn. */
  submit: (batch: Batch) => void;
}

/**
 * The `/summary` command, a host command of the command registry (`tsumugi.summary`): it is
 * dispatched, scoped and listed by /help like every other command, and summarises the
 * session's last N stored messages on demand. Its words come from `chat.summary.commands` on
 * every message, so a config edit applies at once; with none, it matches nothing and /help
 * leaves it out.
 */
export function summaryCommand(deps: SummaryCommandDeps): CommandComponent {
  return hostCommand({
    name: "summary",
    description: "总结最近的聊天记录",
    words: () => deps.settings().commands,
    usage: "[条数]",
    async invoke(match, call) {
      const command = call.message;
      deps.submit({
        kind: "summary",
        sessionId: command.sessionId,
        messages: await transcript(deps.store, command, summaryCount(match.rest, deps.settings())),
        triggerIds: [command.messageId],
        requestedBy: command,
      });
      return undefined;
    },
  });
}

/** The `count` stored messages before the command, oldest first; taken now, not when the turn runs. */
async function transcript(store: MessageStore, command: ChatMessage, count: number): Promise<ChatMessage[]> {
  const stored = await store.recent({ sessionId: command.sessionId, limit: count + 1 });
  const index = stored.findLastIndex(
    (m) => m.messageId === command.messageId && m.userId === command.userId && m.time === command.time,
  );
  if (index >= 0) stored.splice(index, 1);
  return stored.slice(-count);
}
