import type { ChatAdapter, GroupActions, GroupMember, GroupRole } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { isAdmin } from "../plugins/admins.ts";

/** A group as one of the bot's accounts is in it. */
export interface GroupPlace {
  platform: string;
  adapterId: string;
  selfId: string;
  groupId: string;
}

/** How long a member's role read from the platform is trusted: a demoted admin loses the tools within it. */
const MEMBER_ROLE_TTL_MS = 60_000;
/** The bot's own role is asked for less often (every turn's tool offer reads it). */
const BOT_ROLE_TTL_MS = 5 * 60_000;
/** A platform that did not answer is asked again after this long, not on every turn. */
const FAILED_READ_RETRY_MS = 30_000;
/** Roles kept at most; the oldest go first. */
const MAX_CACHED_ROLES = 5_000;

/**
 * Who may ask for what in a group: a member's role from the event that brought their message
 * (OneBot `sender.role`) or else from the platform (`get_group_member_info`), never from what
 * a message says; and whether the bot itself is an admin there. Roles read from the platform
 * are cached briefly; a failed read counts as "not an admin" and is retried after half a minute.
 */
export class GroupStanding {
  readonly #members = new Map<string, { member: GroupMember | undefined; at: number; failed?: true }>();

  constructor(
    private readonly deps: {
      adapters: ReadonlyMap<string, ChatAdapter>;
      /** `bot.admins`, read per call. */
      admins: () => readonly string[];
      logger: Logger;
      now?: () => number;
    },
  ) {}

  /** The group's management actions, where its adapter has any. */
  actionsOf(place: Pick<GroupPlace, "adapterId">): GroupActions | undefined {
    return this.deps.adapters.get(place.adapterId)?.groups;
  }

  /** Whether the message's sender may have the group managed: `bot.admins`, or the group's owner or an admin. */
  async mayManage(message: ChatMessage): Promise<boolean> {
    if (isAdmin(message, this.deps.admins())) return true;
    const place = placeOf(message);
    if (place === undefined) return false;
    const role = message.senderRole ?? (await this.roleOf(place, message.userId, MEMBER_ROLE_TTL_MS));
    return role === "owner" || role === "admin";
  }

  /** Whether the bot is the group's owner or an admin: none of the management works elsewhere. */
  async botIsAdmin(place: GroupPlace): Promise<boolean> {
    const role = await this.roleOf(place, place.selfId, BOT_ROLE_TTL_MS);
    return role === "owner" || role === "admin";
  }

  /** A member's role as the platform says now (cached within `ttlMs`). */
  async roleOf(
    place: GroupPlace,
    userId: string,
    ttlMs = MEMBER_ROLE_TTL_MS,
  ): Promise<GroupRole | undefined> {
    return (await this.memberOf(place, userId, ttlMs))?.role;
  }

  /** A member's role and name as the platform says now (cached within `ttlMs`). */
  async memberOf(
    place: GroupPlace,
    userId: string,
    ttlMs = MEMBER_ROLE_TTL_MS,
  ): Promise<GroupMember | undefined> {
    const key = `${place.adapterId}\u0000${place.selfId}\u0000${place.groupId}\u0000${userId}`;
    const now = this.now();
    const cached = this.#members.get(key);
    if (cached !== undefined && now - cached.at < (cached.failed ? FAILED_READ_RETRY_MS : ttlMs))
      return cached.member;
    const lookup = this.actionsOf(place)?.member;
    if (lookup === undefined) return undefined;
    try {
      const member = await lookup(place.selfId, place.groupId, userId);
      this.#remember(key, { member, at: now });
      return member;
    } catch (error) {
      this.#remember(key, { member: undefined, at: now, failed: true });
      this.deps.logger.warn(
        { err: error, groupId: place.groupId, userId },
        "could not read a member's role in the group: counted as not an admin",
      );
      return undefined;
    }
  }

  #remember(key: string, entry: { member: GroupMember | undefined; at: number; failed?: true }): void {
    this.#members.delete(key);
    this.#members.set(key, entry);
    if (this.#members.size > MAX_CACHED_ROLES) this.#members.delete(this.#members.keys().next().value!);
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}

/** The group a message was sent in, or undefined outside groups. */
export function placeOf(
  message: Pick<ChatMessage, "platform" | "adapterId" | "selfId" | "groupId" | "chatType">,
): GroupPlace | undefined {
  if (message.chatType !== "group" || message.groupId === undefined) return undefined;
  return {
    platform: message.platform,
    adapterId: message.adapterId,
    selfId: message.selfId,
    groupId: message.groupId,
  };
}
