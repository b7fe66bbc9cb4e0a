import type { ToolSpec } from "../llm/types.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { originOf } from "../reminders/reminder-commands.ts";
import type { ReminderService } from "../reminders/reminder-service.ts";
import type { BuiltinCall, ToolRun } from "./builtin-tools.ts";

export const SCHEDULE_TOOL = "schedule";

/** The planner's `schedule`: a reminder for the person the turn answers, in this chat. */
export function scheduleToolSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: SCHEDULE_TOOL,
    description: prompts.render("tool_schedule"),
    parameters: {
      type: "object",
      properties: {
        time: { type: "string", minLength: 1, description: prompts.render("tool_schedule_time") },
        text: {
          type: "string",
          minLength: 1,
          maxLength: 500,
          description: prompts.render("tool_schedule_text"),
        },
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
  const read = reminders.readTime(time);
  if (!read) {
    return call.invalid(
      `no time could be read from "${time}": give ISO 8601 ("2026-12-24T09:00:00+08:00"), "YYYY-MM-DD HH:MM" in the chat's local time, or "in 2 hours"`,
    );
  }
  if (/[\p{L}\p{N}]/u.test(read.rest)) {
    return call.invalid(
      `"${read.rest}" after the time in "${time}" was not read as part of it (${reminders.timeText(read.at)}): give only the time, e.g. ISO 8601`,
    );
  }
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
      output: `reminder #${reminder.id} set for ${reminders.timeText(reminder.dueAt)} in ${reminders.timeZoneName()} (${reminder.userName}: ${reminder.text}); they can cancel it with /cancel ${reminder.id}. Tell them this time.`,
    },
  };
}
