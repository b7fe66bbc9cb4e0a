import { type Static, Type } from "@sinclair/typebox";
import { count, group, milliseconds } from "../schema/fields.ts";

export const remindersSchema = group(
  "Reminders set in chats (/remind, /提醒, the planner's schedule tool), sent at their time in chat.timezone.",
  {
    enabled: Type.Boolean({
      default: true,
      description: "Offer the schedule tool and the /remind, /reminders and /cancel commands.",
    }),
    maxPerPerson: count("Pending reminders one person may have in one chat", 10),
    maxPerChat: count("Pending reminders one chat may have", 50),
    maxLateMs: milliseconds(
      "A reminder found this long past its time (the bot was down) is marked expired instead of being sent late",
      6 * 60 * 60_000,
    ),
    maxDaysAhead: count("Furthest ahead a reminder may be set, in days", 366),
  },
);

export const schedulesSchema = Type.Array(
  Type.Object(
    {
      cron: Type.String({
        minLength: 1,
        description: 'When, as a cron expression in chat.timezone ("0 9 * * 1": Mondays at 09:00).',
      }),
      chat: Type.String({
        pattern: "^(group|private):[^:]+$",
        description: 'Where: "group:<groupId>" or "private:<userId>", on the first connected account.',
      }),
      text: Type.Optional(Type.String({ minLength: 1, description: "A message sent as it is." })),
      prompt: Type.Optional(
        Type.String({
          minLength: 1,
          description:
            "An instruction the replyer model carries out in the persona (summarise yesterday's chat); its stored text is not sent when the model fails.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  {
    default: [],
    description: "Scheduled messages: a text or a prompt for a chat, at each time of a cron expression.",
  },
);

/** `reminders` of the config. */
export type ReminderSettings = Static<typeof remindersSchema>;
/** One `schedules[]` entry. */
export type ScheduleEntry = Static<typeof schedulesSchema>[number];
