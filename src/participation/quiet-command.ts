import { hostCommand } from "../components/host-command.ts";
import type { CommandComponent } from "../components/types.ts";
import type { ParticipationSettings } from "./config.ts";
import type { Participation } from "./participation.ts";

const WORDS = ["/quiet", "/安静"];

export interface QuietCommandDeps {
  participation: Pick<Participation, "quiet">;
  /** The participation settings in force in a session (for quietMinutes). */
  settings: (sessionId: string) => ParticipationSettings;
}

/**
 * `/quiet [minutes]` (`/安静`), an admin's host command: the bot speaks in this chat only when
 * addressed, for the minutes given or `chat.participation.quietMinutes`; `/quiet off` ends it.
 */
export function quietCommand(deps: QuietCommandDeps): CommandComponent {
  return hostCommand({
    name: "quiet",
    description: "让机器人在这个聊天里暂时不主动说话（被叫到时仍会回答）",
    words: () => WORDS,
    usage: "[分钟 | off]",
    adminOnly: true,
    async invoke(match, call) {
      const { sessionId } = call.message;
      const asked = match.args[0];
      if (asked === "off" || asked === "0") {
        deps.participation.quiet(sessionId, 0);
        return "好的，我又可以主动说话了。";
      }
      const minutes = asked === undefined ? deps.settings(sessionId).quietMinutes : Number(asked);
      if (!Number.isInteger(minutes) || minutes <= 0) return `用法：${WORDS[0]} [分钟 | off]`;
      deps.participation.quiet(sessionId, minutes);
      return `好的，接下来 ${minutes} 分钟我不主动说话，叫我时仍会回答。`;
    },
  });
}
