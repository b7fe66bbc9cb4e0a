import { nonEmptyString, toWireId } from "../../message/onebot-values.ts";
import { isRecord } from "../../util/values.ts";
import type { GroupActions, GroupRole } from "../types.ts";

type CallAction = (selfId: string, action: string, params: Record<string, unknown>) => Promise<unknown>;

/**
 * Group management over OneBot v11 (api/public.md of botuniverse/onebot-11) and NapCat's
 * additions (napneko.github.io, "API"): `get_group_member_info` for roles, `set_group_ban`,
 * `set_group_kick`, `set_essence_msg`, NapCat's `_send_group_notice` and
 * `set_group_add_request`. NapCat, LLOneBot and Lagrange all answer these; an implementation
 * that does not refuses the call, which the caller reports.
 */
export function oneBotGroupActions(call: CallAction): Required<GroupActions> {
  return {
    async member(selfId, groupId, userId) {
      const data = await call(selfId, "get_group_member_info", {
        group_id: toWireId(groupId),
        user_id: toWireId(userId),
        // A role changed by the group's owner must be seen: the cache is the caller's.
        no_cache: true,
      });
      const role = isRecord(data) ? roleOf(data.role) : undefined;
      if (!isRecord(data) || role === undefined) return undefined;
      const name = nonEmptyString(data.card) ?? nonEmptyString(data.nickname) ?? userId;
      return { role, name };
    },
    async mute(selfId, groupId, userId, seconds) {
      await call(selfId, "set_group_ban", {
        group_id: toWireId(groupId),
        user_id: toWireId(userId),
        duration: seconds,
      });
    },
    async kick(selfId, groupId, userId) {
      await call(selfId, "set_group_kick", {
        group_id: toWireId(groupId),
        user_id: toWireId(userId),
        reject_add_request: false,
      });
    },
    async setEssence(selfId, messageId) {
      await call(selfId, "set_essence_msg", { message_id: toWireId(messageId) });
    },
    async postNotice(selfId, groupId, text) {
      await call(selfId, "_send_group_notice", { group_id: toWireId(groupId), content: text });
    },
    async answerJoinRequest(selfId, flag, approve, reason) {
      await call(selfId, "set_group_add_request", {
        flag,
        sub_type: "add",
        approve,
        ...(approve || reason === undefined ? {} : { reason }),
      });
    },
  };
}

/** A role as OneBot writes it (`sender.role`, `get_group_member_info`'s `role`). */
export function roleOf(value: unknown): GroupRole | undefined {
  return value === "owner" || value === "admin" || value === "member" ? value : undefined;
}
