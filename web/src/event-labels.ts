/** The timeline's names of event types, in Chinese and English. */

import { currentLang } from "./i18n.ts";
import type { MonitorEventType } from "./types.ts";

/** Every event the bot emits, as the timeline names it; a new event type does not compile without one. */
const EVENT_LABELS: Record<MonitorEventType, [string, string]> = {
  "message.ingested": ["收到消息", "Message received"],
  "access.denied": ["无权使用", "Access denied"],
  "limit.reached": ["达到限额", "Limit reached"],
  "batch.flushed": ["消息成批", "Messages batched"],
  "batch.trimmed": ["消息过多，较早的未放入提示词", "Too many messages: the oldest left out"],
  "turn.started": ["回合开始", "Turn started"],
  "plugins.not_ready": [
    "插件仍在启动，回合未等其工具",
    "Plugins still activating: the turn went on without them",
  ],
  "quote.resolved": ["读取引用", "Quote read"],
  "vision.described": ["看懂图片", "Picture described"],
  "vision.failed": ["图片未能看懂", "Picture not described"],
  "vision.skipped": ["图片超出限额，未看", "Pictures over the cap: not described"],
  "speech.transcribed": ["听懂语音", "Voice message transcribed"],
  "speech.failed": ["语音未能听懂", "Voice message not transcribed"],
  "speech.skipped": ["语音超出限额，未听", "Voice messages over the cap: not transcribed"],
  "tts.spoken": ["说了一条语音", "Voice message spoken"],
  "tts.failed": ["语音没说成，改发文字或被拒", "Voice not spoken (text instead, or refused)"],
  "image.generated": ["画了一张图", "Picture drawn"],
  "image.failed": ["图没画成", "Picture not drawn"],
  "reminder.set": ["设置了提醒", "Reminder set"],
  "reminder.sent": ["发出提醒", "Reminder sent"],
  "reminder.cancelled": ["取消了提醒", "Reminder cancelled"],
  "schedule.sent": ["发出定时消息", "Scheduled message sent"],
  "sticker.learned": ["收藏表情包", "Sticker kept"],
  "sticker.sent": ["发送表情包", "Sticker sent"],
  "planner.round": ["规划", "Planner round"],
  "tool.called": ["调用工具", "Tool called"],
  "hook.decision": ["钩子决定", "Hook decision"],
  "reply.extension": ["回复扩展", "Reply extension"],
  "replyer.generated": ["写出回复", "Reply written"],
  "transcript.read": ["阅读聊天记录", "Transcript read"],
  "message.sent": ["已发送", "Message sent"],
  "turn.finished": ["回合结束", "Turn finished"],
  "plugin.loaded": ["插件已加载", "Plugin loaded"],
  "plugin.failed": ["插件出错", "Plugin failed"],
  "plugin.process": ["插件进程", "Plugin process"],
  "mcp.server": ["MCP 服务器状态", "MCP server state"],
  "adapter.connection": ["连接变化", "Connection changed"],
  "memory.recalled": ["想起记忆", "Memories recalled"],
  "memory.learned": ["记住 / 修改记忆", "Memory learned or changed"],
  "expressions.learned": ["学到群里的说法", "Group expressions learned"],
  "participation.decided": ["主动参与的决定", "Participation decision"],
  "manage.action": ["群管理", "Group management"],
  "memory.forgotten": ["忘记", "Memories forgotten"],
};

/** The timeline's name for an event type; types it does not know (from an older version) show as they are. */
export function eventLabel(type: string): string {
  const label = EVENT_LABELS[type as MonitorEventType] as [string, string] | undefined;
  return label ? label[currentLang() === "zh" ? 0 : 1] : type;
}
