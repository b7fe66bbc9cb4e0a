import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import type { GroupsAnswer } from "./types.ts";

/**
 * The names of the bot's groups by session id (from the accounts' group lists), so pages show
 * "Hiking club (20000)" rather than a session id alone.
 */
export function useGroupNames(): (sessionId: string) => string | undefined {
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => {
    void api.get<GroupsAnswer>("/api/groups").then((answer) => {
      const found: Record<string, string> = {};
      for (const group of answer.groups)
        if (group.name) found[group.sessionId] = `${group.name} (${group.groupId})`;
      setNames(found);
    });
  }, []);
  return (sessionId) => names[sessionId];
}

/** Who each member id is, from the names messages were sent under: an @ shows a name, not a number. */
export function senderNames(messages: Array<{ userId: string; senderName: string }>): Record<string, string> {
  const names: Record<string, string> = {};
  for (const message of messages) if (message.senderName) names[message.userId] = message.senderName;
  return names;
}
