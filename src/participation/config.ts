import { type Static, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import { triggersSchema } from "../chat/config.ts";
import { groupManageOverrides } from "../chat/manage-config.ts";
import { count, group, milliseconds } from "../schema/fields.ts";

const CLOCK_TIME = "^([01][0-9]|2[0-3]):[0-5][0-9]$";

const talkValue = (description: string, defaultValue?: number) =>
  Type.Number({
    minimum: 0,
    maximum: 1,
    description,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  });

const scheduleEntrySchema = Type.Object(
  {
    from: Type.String({ pattern: CLOCK_TIME, description: 'Start, "HH:MM" in chat.timezone.' }),
    to: Type.String({
      pattern: CLOCK_TIME,
      description: 'End (exclusive), "HH:MM" in chat.timezone; before `from`, the period runs over midnight.',
    }),
    talkValue: talkValue("The talkValue in force during the period."),
  },
  { additionalProperties: false },
);

/** The participation keys, each with its default; the per-group overrides take the same keys without defaults. */
const participationFields = {
  talkValue: talkValue(
    "How readily the bot joins a conversation unasked, 0..1: 0 = only when addressed; 1 = it considers every message",
    0,
  ),
  schedule: Type.Array(scheduleEntrySchema, {
    default: [],
    description:
      'Periods with another talkValue, e.g. [{ from: "23:00", to: "08:00", talkValue: 0 }]; the first period containing the time wins.',
  }),
  minGapMs: milliseconds("Least time between two unasked messages in one chat", 60_000, 0),
  maxPerHour: count("Most unasked messages per chat in any 60 minutes", 6, 0),
  maxConsecutive: count(
    "Most bot messages in a row with no human message between: past it the bot adds nothing unasked",
    2,
    0,
  ),
  quietPhrases: Type.Array(Type.String({ minLength: 1 }), {
    default: ["闭嘴", "安静点", "别说话", "shut up"],
    description: "A member's message containing one of these makes the bot quiet (unasked) for quietMinutes.",
  }),
  quietMinutes: count("How long a quiet phrase or /quiet keeps the bot from speaking unasked", 30),
  pingPongMs: milliseconds(
    "An answer to the bot this soon after its message counts as a quick one for the ping-pong guard (0: no guard)",
    1_000,
    0,
  ),
  pingPongRounds: count(
    "Quick answers in a row after which the bot stops joining that member unasked for an hour (addressed messages are still answered)",
    3,
  ),
  pingPongAddressedRounds: count(
    "Quick answers in a row (a cadence no person keeps up) after which even the member's addressed messages go unanswered for an hour",
    8,
  ),
  pingPongRepeatRounds: count(
    "Quick answers in a row each nearly the same as the one before (one template) after which even the member's addressed messages go unanswered for an hour",
    3,
  ),
  restNotice: Type.Boolean({
    default: true,
    description:
      "Tell a member once (prompt template participation_resting) when the ping-pong guard starts leaving their addressed messages unanswered",
  }),
  settleMs: milliseconds(
    "An unasked message waits until nobody has written for this long and nobody is typing",
    2_000,
    0,
  ),
  maxWaitMs: milliseconds(
    "Longest an unasked message waits for the chat to settle; still busy then, it is not sent",
    30_000,
    0,
  ),
};

export const participationSchema = group(
  "Joining conversations unasked, and the hard rules (outside the model) that bound it.",
  participationFields,
);

export const otherBotsSchema = Type.Array(Type.String({ pattern: "^-?[0-9]+$" }), {
  default: [],
  description:
    "User ids of other bots in the chats: their messages never trigger the bot and never count as a human message between the bot's.",
});

/** An object of optional keys with no defaults: an override names only what differs. */
function partialOf<Properties extends TProperties>(description: string, fields: Properties) {
  const whole = Type.Object(fields);
  const properties = Object.fromEntries(
    Object.entries(whole.properties).map(([key, schema]) => {
      const { default: _default, ...withoutDefault } = schema as TSchema & { default?: unknown };
      return [key, withoutDefault];
    }),
  );
  return Type.Unsafe<Partial<Static<typeof whole>>>({
    type: "object",
    additionalProperties: false,
    description,
    properties,
  });
}

const groupOverrideSchema = Type.Object(
  {
    participation: Type.Optional(
      partialOf("This group's participation keys, over chat.participation.", participationFields),
    ),
    persona: Type.Optional(Type.String({ description: "This group's persona, instead of bot.persona." })),
    voice: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 }), {
        description: "This group's voice per speech provider id, over bot.voice.",
      }),
    ),
    triggers: Type.Optional(
      partialOf("This group's trigger keys, over chat.triggers.", triggersSchema.properties),
    ),
    models: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 })), {
        description:
          'Task → models for this group, over llm.models (e.g. { replyer: ["main/other-model"] }).',
      }),
    ),
    ...groupManageOverrides,
  },
  { additionalProperties: false },
);

export const chatGroupsSchema = Type.Record(Type.String({ pattern: "^-?[0-9]+$" }), groupOverrideSchema, {
  default: {},
  description:
    'Per-group settings by group id: { "123456": { participation, persona, triggers, models, welcome, joinRequests, manage } }; each key given replaces the global one in that group alone.',
});

export type ParticipationSettings = Static<typeof participationSchema>;
export type ScheduleEntry = Static<typeof scheduleEntrySchema>;
export type GroupOverride = Static<typeof groupOverrideSchema>;
