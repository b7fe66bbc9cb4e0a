import type { Logger } from "../log/logger.ts";
import { shown } from "../message/card-text.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import { isSegment } from "../message/segment-guards.ts";
import { isRecord } from "../util/values.ts";

/** Names kept across turns (group card or nickname, or "unknown"), oldest dropped first. */
export const MAX_CACHED_NAMES = 2_000;

/** Members looked up per turn at most: a message mentioning fifty people costs no more. */
export const MAX_LOOKUPS_PER_TURN = 10;

/** How long one `get_group_member_info` may take before the mention keeps its id. */
const LOOKUP_TIMEOUT_MS = 3_000;

/** Asks the platform for a member (`get_group_member_info`); resolves with the action's raw `data`. */
export type MemberLookup = (groupId: string, userId: string, timeoutMs: number) => Promise<unknown>;

export interface MemberNamesDeps {
  /** The lookup for a message's platform account; undefined when it is not connected. */
  lookupFor(message: ChatMessage): MemberLookup | undefined;
  logger: Logger;
}

/**
 * Names for mentions that carry only an id (`@10003` becomes `@张三`): the name the member went
 * by in the messages already seen, else their group card or nickname from the platform, cached
 * with a bound so a busy group is asked once per member.
 */
export class MemberNames {
  /** `account|group|user` → name; null for a member the platform could not name. */
  private readonly cache = new Map<string, string | null>();

  constructor(private readonly deps: MemberNamesDeps) {}

  /** The name of every member mentioned without one in `messages`; `seen` are the messages already read. */
  async namesFor(
    messages: ChatMessage[],
    seen: ChatMessage[],
  ): Promise<(userId: string) => string | undefined> {
    const names = new Map<string, string>();
    for (const message of seen) {
      if (!message.fromSelf) names.set(message.userId, message.senderName);
    }
    // Members to ask about, asked all at once: a slow platform delays the turn by one timeout at most.
    const pending = new Map<string, { message: ChatMessage; groupId: string; userId: string }>();
    for (const message of messages) {
      const { groupId } = message;
      if (groupId === undefined) continue;
      for (const userId of unnamedMentions(message.segments, message.selfId)) {
        const key = this.keyOf(message, userId);
        if (names.has(userId) || this.cache.has(key) || pending.size >= MAX_LOOKUPS_PER_TURN) continue;
        pending.set(key, { message, groupId, userId });
      }
    }
    await Promise.all(
      [...pending].map(async ([key, { message, groupId, userId }]) =>
        this.remember(key, await this.lookUp(message, groupId, userId)),
      ),
    );
    for (const message of messages) {
      for (const userId of unnamedMentions(message.segments, message.selfId)) {
        const name = names.has(userId) ? undefined : this.cache.get(this.keyOf(message, userId));
        if (name) names.set(userId, name);
      }
    }
    return (userId) => names.get(userId);
  }

  private async lookUp(message: ChatMessage, groupId: string, userId: string): Promise<string | null> {
    const lookup = this.deps.lookupFor(message);
    if (!lookup) return null;
    try {
      const member = await lookup(groupId, userId, LOOKUP_TIMEOUT_MS);
      if (!isRecord(member)) return null;
      return shown(member.card) ?? shown(member.nickname) ?? null;
    } catch (error) {
      this.deps.logger.debug(
        { groupId, userId, err: error },
        "get_group_member_info failed; the mention keeps its id",
      );
      return null;
    }
  }

  private keyOf(message: ChatMessage, userId: string): string {
    return `${message.adapterId}|${message.selfId}|${message.groupId}|${userId}`;
  }

  private remember(key: string, name: string | null): void {
    this.cache.set(key, name);
    if (this.cache.size > MAX_CACHED_NAMES) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** Ids of members mentioned without a name, other than the bot and everyone. */
function unnamedMentions(segments: Segment[], selfId: string): string[] {
  const ids: string[] = [];
  for (const segment of segments) {
    if (!isSegment(segment, "at")) continue;
    const { qq, name } = segment.data;
    if (qq !== "all" && qq !== selfId && !name?.replace(/^@/, "")) ids.push(qq);
  }
  return ids;
}
