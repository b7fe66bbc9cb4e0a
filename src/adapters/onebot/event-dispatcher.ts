import type { Logger } from "../../log/logger.ts";
import { idToString } from "../../message/onebot-values.ts";
import { isRecord } from "../../util/values.ts";
import type { AdapterEvents } from "../types.ts";
import type { AccountTable } from "./account-table.ts";
import { decodeMessageEvent } from "./event-decoder.ts";
import { decodeNotice } from "./notice-decoder.ts";

export interface EventDispatcherOptions {
  adapterId: string;
  events: AdapterEvents;
  accounts: AccountTable;
  logger: Logger;
}

/**
 * Routes OneBot events: chat messages and pokes to `events.message`, recalls to
 * `events.deleted`, members joining and join requests to `events.memberJoined` and
 * `events.joinRequest`, heartbeat and `bot_offline` online state to the account table;
 * everything else (other notices and requests, types added later) is logged at debug.
 * Nothing an implementation sends can make this throw.
 */
export class OneBotEventDispatcher {
  readonly #options: EventDispatcherOptions;

  constructor(options: EventDispatcherOptions) {
    this.#options = options;
  }

  dispatch(event: Record<string, unknown>, connectionSelfId: string | undefined): void {
    const { logger } = this.#options;
    const selfId = idToString(event.self_id) ?? connectionSelfId;
    if (!selfId) {
      logger.debug({ postType: event.post_type }, "onebot event without self id ignored");
      return;
    }
    try {
      this.#route(event, selfId);
    } catch (error) {
      logger.error({ err: error, selfId, postType: event.post_type }, "onebot event handling failed");
    }
  }

  #route(event: Record<string, unknown>, selfId: string): void {
    const { logger, events, adapterId } = this.#options;
    switch (event.post_type) {
      case "message": {
        const decoded = decodeMessageEvent(event, { adapterId, selfId, now: Date.now });
        if (decoded.ok) events.message(decoded.message);
        else if (decoded.refused)
          logger.warn(describeEvent(event, selfId, decoded.problem), "onebot message event refused");
        else logger.debug({ selfId, problem: decoded.problem }, "onebot message event ignored");
        return;
      }
      case "message_sent":
        // NapCat reports the bot's own messages; the bot already records what it sends.
        logger.debug({ selfId, messageId: idToString(event.message_id) }, "onebot message_sent ignored");
        return;
      case "meta_event":
        this.#meta(event, selfId);
        return;
      case "notice":
        this.#notice(event, selfId);
        return;
      case "request":
        this.#request(event, selfId);
        return;
      default:
        logger.debug(
          {
            selfId,
            postType: event.post_type,
            type: event.notice_type ?? event.request_type,
            subType: event.sub_type,
          },
          "onebot event ignored",
        );
    }
  }

  /**
   * Recalls (撤回) delete a message, a poke reaches the chat like a message, a typing notice
   * reaches the participation rules, NapCat's
   * `bot_offline` (the account was logged out) sets the account offline at once; other notices
   * are logged at debug.
   */
  #notice(event: Record<string, unknown>, selfId: string): void {
    const { events, logger, accounts, adapterId } = this.#options;
    const notice = decodeNotice(event, { adapterId, selfId, now: Date.now });
    switch (notice.kind) {
      case "recall":
        logger.debug(
          { selfId, sessionId: notice.sessionId, messageId: notice.messageId },
          "onebot message recalled",
        );
        events.deleted?.({ sessionId: notice.sessionId, messageId: notice.messageId });
        return;
      case "poke":
        events.message(notice.message);
        return;
      case "typing":
        events.typing?.({ sessionId: notice.sessionId, userId: notice.userId, typing: notice.typing });
        return;
      case "offline":
        logger.warn(
          { selfId, tag: event.tag, reason: event.message },
          "onebot account offline (bot_offline)",
        );
        if (accounts.setOnline(selfId, false)) events.connection(accounts.get(selfId));
        return;
      case "joined":
        events.memberJoined?.({ adapterId, selfId, groupId: notice.groupId, userId: notice.userId });
        return;
      case "other":
        logger.debug({ selfId, type: event.notice_type, subType: event.sub_type }, "onebot notice ignored");
    }
  }

  /**
   * A request to join a group (OneBot v11 event/request.md: `request_type` group, `sub_type`
   * add, with `comment` and `flag`); invitations of the bot and friend requests are logged only.
   */
  #request(event: Record<string, unknown>, selfId: string): void {
    const { events, logger, adapterId } = this.#options;
    const groupId = idToString(event.group_id);
    const userId = idToString(event.user_id);
    const flag = idToString(event.flag);
    if (event.request_type !== "group" || event.sub_type !== "add" || !groupId || !userId || !flag) {
      logger.debug(
        { selfId, type: event.request_type, subType: event.sub_type, groupId },
        "onebot request ignored",
      );
      return;
    }
    const comment = typeof event.comment === "string" ? event.comment : "";
    events.joinRequest?.({ adapterId, selfId, groupId, userId, comment, flag });
  }

  #meta(event: Record<string, unknown>, selfId: string): void {
    const { accounts, logger, events } = this.#options;
    const online = isRecord(event.status) ? event.status.online : undefined;
    if (typeof online !== "boolean") {
      logger.debug(
        { selfId, metaEventType: event.meta_event_type, subType: event.sub_type },
        "onebot meta event",
      );
      return;
    }
    if (!accounts.setOnline(selfId, online)) return;
    logger.info({ selfId, online }, online ? "onebot account online" : "onebot account offline");
    events.connection(accounts.get(selfId));
  }
}

/** Names an event in a log line by its ids (never its content). */
function describeEvent(
  event: Record<string, unknown>,
  selfId: string,
  problem: string,
): Record<string, unknown> {
  return {
    selfId,
    messageId: idToString(event.message_id),
    groupId: idToString(event.group_id),
    userId: idToString(event.user_id),
    problem,
  };
}
