import type { ToolSpec } from "../llm/types.ts";
import { originOf } from "../reminders/reminder-commands.ts";
import type { ReminderService } from "../reminders/reminder-service.ts";
import type { BuiltinCall, ToolRun } from "./builtin-tools.ts";

export const SCHEDULE_TOOL = "schedule";

/** The planner's `schedule`: a reminder for the person the turn answers, in this chat. */
export function scheduleToolSpec(): ToolSpec {
  return {
    name: SCHEDULE_TOOL,
    description:
      "Set a reminder: at `time` the bot reminds the person you are answering, in this chat (mentioning them in a group). Use it when someone asks to be reminded (提醒我…). Then reply to confirm.",
    parameters: {
      type: "object",
      properties: {
        time: {
          type: "string",
          minLength: 1,
          description:
            'When, in the chat\'s local time: "YYYY-MM-DD HH:MM" (preferred; work it out from the current time), "HH:MM" (the next such time), or relative "10m", "2h", "1d".',
        },
        text: { type: "string", minLength: 1, maxLength: 500, description: "What to remind them of." },
      },
      required: ["time", "text"],
      additionalProperties: false,
    },
  };
}

/** Sets the reminder; a time it cannot read or a full chat is told back to the planner. */
export async function runScheduleTool(
  args: Record<string, unknown>,
  call: BuiltinCall,
  reminders: ReminderService,
): Promise<ToolRun> {
  const { time, text } = args as { time: string; text: string };
  const target = await call.turn.findTarget(undefined);
  if (!target) return call.invalid("no message to set a reminder for");
  const read = reminders.readTime(time.trim().split(/\s+/));
  if (!read) return call.invalid(`time "${time}" is not "YYYY-MM-DD HH:MM", "HH:MM", "10m", "2h" or "1d"`);
  const set = await reminders.set({
    origin: originOf(target),
    userId: target.userId,
    userName: target.senderName,
    text,
    dueAt: read.at,
  });
  if (!set.ok) return { output: { output: `not set: ${set.reason}`, isError: true } };
  const { reminder } = set;
  return {
    output: {
      output: `reminder #${reminder.id} set for ${reminders.timeText(reminder.dueAt)} (${reminder.userName}: ${reminder.text}); they can cancel it with /cancel ${reminder.id}`,
    },
  };
}
