import type { ChatAdapter } from "../adapters/types.ts";
import { toWireId } from "../message/onebot-values.ts";
import type { MemberLookup } from "./member-names.ts";
import type { QuoteFetcher } from "./quote-types.ts";

/**
 * Quote resolution's calls as OneBot actions of one account. `get_msg` takes the id as a
 * number where that is exact (go-cqhttp and Lagrange want an integer); forward ids stay
 * strings (NapCat's exceed 2^53, Lagrange's are not numeric) and go out as both `id` (spec,
 * Lagrange) and `message_id` (go-cqhttp, NapCat).
 */
export function oneBotQuoteFetcher(adapter: ChatAdapter, selfId: string): QuoteFetcher {
  return {
    getMessage: (messageId, timeoutMs) =>
      adapter.callAction(selfId, "get_msg", { message_id: toWireId(messageId) }, { timeoutMs }),
    getForward: (forwardId, timeoutMs) =>
      adapter.callAction(selfId, "get_forward_msg", { id: forwardId, message_id: forwardId }, { timeoutMs }),
  };
}

/** `get_group_member_info` of one account, ids as numbers where exact (go-cqhttp and Lagrange want integers). */
export function oneBotMemberLookup(adapter: ChatAdapter, selfId: string): MemberLookup {
  return (groupId, userId, timeoutMs) =>
    adapter.callAction(
      selfId,
      "get_group_member_info",
      { group_id: toWireId(groupId), user_id: toWireId(userId) },
      { timeoutMs },
    );
}
