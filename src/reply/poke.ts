import type { ChatAdapter } from "../adapters/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { toWireId } from "../message/onebot-values.ts";

/**
 * Pokes `userId` in the origin's chat: NapCat's (and LLOneBot's, Lagrange's) `group_poke` /
 * `friend_poke` first, then `send_poke` (NapCat's generic name, kept by its forks) when the
 * implementation refused the first. Resolves with the action that did it; rejects when neither did.
 */
export async function sendPoke(
  adapter: ChatAdapter,
  origin: Pick<ChatMessage, "selfId" | "chatType" | "groupId">,
  userId: string,
): Promise<string> {
  const params: Record<string, unknown> = { user_id: toWireId(userId) };
  if (origin.chatType === "group" && origin.groupId !== undefined) params.group_id = toWireId(origin.groupId);
  const first = origin.chatType === "group" ? "group_poke" : "friend_poke";
  try {
    await adapter.callAction(origin.selfId, first, params);
    return first;
  } catch (firstError) {
    try {
      await adapter.callAction(origin.selfId, "send_poke", params);
      return "send_poke";
    } catch {
      throw firstError;
    }
  }
}
