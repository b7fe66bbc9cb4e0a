import type { PluginEvent } from "../../sdk/types.ts";
import type { StdioChannels } from "./channel-adapter.ts";
import { parseChannelSession } from "./channel-session.ts";

/**
 * Where a call happens, as xbot names it: `sessionId`, `channel` (a stdio channel's name, else
 * the adapter id such as "qq") and `chatId` (the channel's chat id, else the group or user id).
 */
export function chatParams(
  event: PluginEvent,
  channels: Pick<StdioChannels, "nameOf">,
): { sessionId: string; channel: string; chatId: string } {
  const session = parseChannelSession(event.session_id);
  if (session) {
    return {
      sessionId: event.session_id,
      channel: channels.nameOf(session.pluginId) ?? session.pluginId,
      chatId: session.chatId,
    };
  }
  return { sessionId: event.session_id, channel: event.adapter_id, chatId: event.group_id ?? event.user_id };
}
