import { hostCommand } from "../components/host-command.ts";
import type { CommandComponent } from "../components/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Reminder } from "../store/types.ts";
import type { ReminderService } from "./reminder-service.ts";

const REMIND_WORDS = ["/remind", "/提醒"];
const LIST_WORDS = ["/reminders"];
const CANCEL_WORDS = ["/cancel"];

/** `/remind` (`/提醒`) `<time> <text>`, `/reminders` and `/cancel <id>`: host commands like `/memory`. */
export function reminderCommands(
  reminders: ReminderService,
  templates: () => PromptTemplates,
): CommandComponent[] {
  return [
    command("remind", "在某个时间提醒你", REMIND_WORDS, "<时间> <内容>", async (rest, message) => {
      const time = reminders.readTime(rest);
      if (!time) return templates().render("reminder_usage");
      const set = await reminders.set({
        origin: originOf(message),
        userId: message.userId,
        userName: message.senderName,
        text: time.rest,
        dueAt: time.at,
      });
      if (!set.ok) return set.reason;
      const { reminder } = set;
      return templates().render("reminder_set", {
        time: reminders.timeText(reminder.dueAt),
        text: reminder.text,
        id: String(reminder.id),
      });
    }),
    command("reminders", "看看你在这里的提醒", LIST_WORDS, "", async (_rest, message) => {
      const pending = await reminders.pending(message.sessionId, message.userId);
      if (pending.length === 0) return templates().render("reminder_list_none");
      const lines = pending.map((reminder) => line(reminders, reminder)).join("\n");
      return templates().render("reminder_list", { lines });
    }),
    command("cancel", "取消你的一个提醒", CANCEL_WORDS, "<编号>", async (rest, message) => {
      const id = Number(/^#?(\d+)$/.exec(rest.trim())?.[1]);
      if (!Number.isSafeInteger(id)) return templates().render("reminder_cancel_usage");
      const cancelled = await reminders.cancel(id, { sessionId: message.sessionId, userId: message.userId });
      return templates().render(cancelled ? "reminder_cancelled" : "reminder_cancel_unknown", {
        id: String(id),
      });
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
