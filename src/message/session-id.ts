/** Session ids name one conversation: `onebot:<selfId>:group:<groupId>` or `onebot:<selfId>:private:<userId>`. */

export type ChatType = "group" | "private";

export interface SessionAddress {
  platform: string;
  selfId: string;
  chatType: ChatType;
  /** Group id for group chats, user id for private chats. */
  peerId: string;
}

export function formatSessionId(address: SessionAddress): string {
  return `${address.platform}:${address.selfId}:${address.chatType}:${address.peerId}`;
}

/** The group a session id names, or undefined for a private chat (or an id of another form). */
export function groupOfSession(sessionId: string): string | undefined {
  const address = parseSessionId(sessionId);
  return address?.chatType === "group" ? address.peerId : undefined;
}

export function parseSessionId(sessionId: string): SessionAddress | undefined {
  const match = /^([^:]+):([^:]+):(group|private):(.+)$/.exec(sessionId);
  if (!match) return undefined;
  return {
    platform: match[1]!,
    selfId: match[2]!,
    chatType: match[3] as ChatType,
    peerId: match[4]!,
  };
}
