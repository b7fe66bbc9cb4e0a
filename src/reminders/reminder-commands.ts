import { hostCommand } from "../components/host-command.ts";
import type { CommandComponent } from "../components/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Reminder } from "../store/types.ts";
import type { ReminderService } from "./reminder-service.ts";

const REMIND_WORDS = ["/remind", "/提醒"];
const LIST_WORDS = ["/reminders"];
const CANCEL_WORDS = ["/cancel"];
const USAGE = "用法：/提醒 20:00 交作业（也可以写 12-24 09:00、2026-12-24 09:00、10m、2h、1d）";

/** `/remind` (`/提醒`) `<time> <text>`, `/reminders` and `/cancel <id>`: host commands like `/memory`. */
export function reminderCommands(reminders: ReminderService): CommandComponent[] {
  return [
    command("remind", "在某个时间提醒你", REMIND_WORDS, "<时间> <内容>", async (rest, message) => {
      const words = rest.split(/\s+/).filter(Boolean);
      const time = reminders.readTime(words);
      if (!time) return USAGE;
      const set = await reminders.set({
        origin: originOf(message),
        userId: message.userId,
        userName: message.senderName,
        text: words.slice(time.words).join(" "),
        dueAt: time.at,
      });
      if (!set.ok) return set.reason;
      return `好的，${reminders.timeText(set.reminder.dueAt)} 提醒你：${set.reminder.text}（#${set.reminder.id}，/cancel ${set.reminder.id} 取消）`;
    }),
    command("reminders", "看看你在这里的提醒", LIST_WORDS, "", async (_rest, message) => {
      const pending = await reminders.pending(message.sessionId, message.userId);
      if (pending.length === 0) return "你在这里没有待发的提醒。";
      return `你的提醒：\n${pending.map((reminder) => line(reminders, reminder)).join("\n")}`;
    }),
    command("cancel", "取消你的一个提醒", CANCEL_WORDS, "<编号>", async (rest, message) => {
      const id = Number(/^#?(\d+)$/.exec(rest.trim())?.[1]);
      if (!Number.isSafeInteger(id)) return "用法：/cancel <编号>（/reminders 可以看编号）";
      const cancelled = await reminders.cancel(id, { sessionId: message.sessionId, userId: message.userId });
      return cancelled ? `已取消提醒 #${id}。` : `这里没有你能取消的提醒 #${id}。`;
    }),
  ];

  /** With reminders off, the commands match nothing and /help leaves them out. */
  function command(
    name: string,
    description: string,
    words: string[],
    usage: string,
    run: (rest: string, message: ChatMessage) => Promise<string>,
  ): CommandComponent {
    return hostCommand({
      name,
      description,
      words: () => (reminders.enabled() ? words : []),
      usage,
      invoke: (match, call) => run(match.rest, call.message),
    });
  }
}

function line(reminders: ReminderService, reminder: Reminder): string {
  return `#${reminder.id} ${reminders.timeText(reminder.dueAt)} ${reminder.text}`;
}

/** Where a reminder set by `message` is sent: its chat. */
export function originOf(message: ChatMessage): Reminder["origin"] {
  const { platform, adapterId, selfId, sessionId, chatType, groupId, userId } = message;
  return {
    platform,
    adapterId,
    selfId,
    sessionId,
    chatType,
    ...(groupId === undefined ? {} : { groupId }),
    userId,
  };
}
