import { type Static, Type } from "@sinclair/typebox";
import { count, formattedString, group, milliseconds, stringEnum } from "../schema/fields.ts";

export const triggersSchema = group("What makes the bot answer right away.", {
  mention: Type.Boolean({ default: true, description: "An @ of the bot, or its name or an alias." }),
  replyToSelf: Type.Boolean({ default: true, description: "A reply to one of the bot's messages." }),
  keywords: Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description: "Words that trigger the bot when a message contains them.",
  }),
  privateAlways: Type.Boolean({ default: true, description: "Every private message." }),
  poke: Type.Boolean({
    default: true,
    description: "A poke (戳一戳) of the bot, in a group or a private chat; pokes of others never trigger.",
  }),
});

export const realtimeSchema = group(
  "Batching of triggered messages: a trigger opens a window that collects follow-ups.",
  {
    windowMs: milliseconds("Quiet time that closes the window", 800, 0),
    maxWindowMs: milliseconds("Longest a window stays open", 3_000, 0),
    maxMessages: count("Messages that close the window early", 10),
    maxChars: count("Characters that close the window early", 8_000),
    maxTurnMessages: count(
      "Most new messages one turn reads, however many waited while the bot was busy; the oldest surplus is left out of the prompt (still stored) with a note",
      30,
    ),
    maxTurnChars: count(
      "Most characters of new messages one turn reads; a message too long to fit is cut",
      8_000,
      100,
    ),
    maxTurnMessagesPerUser: count(
      "Most of one sender's messages one turn reads, so one member's flood cannot crowd out the others",
      10,
    ),
  },
);

export const digestSchema = group("Periodic look at untriggered group chatter.", {
  enabled: Type.Boolean({
    default: false,
    description: "Whether the bot reads along without being triggered.",
  }),
  intervalMs: milliseconds("Time between digests", 300_000),
  minMessages: count("Fewest new messages worth a digest", 3),
  maxMessages: count("Most messages in one digest", 50),
  maxTranscriptChars: count("Most characters of transcript in one digest", 20_000),
});

export const historySchema = group("Recent messages shown to the models.", {
  maxMessages: count(
    "History messages a session's first prompt shows; the window then grows to growth × this and steps back to (1 − dropFraction) × this",
    20,
    0,
  ),
  maxChars: count("History characters a session's first prompt shows; bounded like maxMessages", 4_000, 0),
  dropFraction: Type.Number({
    minimum: 0,
    maximum: 0.9,
    default: 0.5,
    description:
      "When the window is full it steps back to the newest (1 − dropFraction) × maxMessages messages within (1 − dropFraction) × maxChars characters (0.5: half). Until then history only grows, so consecutive prompts share it as the provider's cached prefix; 0 with growth 1 drops only what no longer fits (the window slides every turn and the cache misses).",
  }),
  growth: Type.Number({
    minimum: 1,
    maximum: 10,
    default: 3,
    description:
      "How far the window grows before it steps: up to growth × maxMessages messages and growth × maxChars characters. Larger steps less often (more of each prompt served from the provider's cache) for more history per prompt; 1 keeps the window within maxMessages and maxChars.",
  }),
});

export const summarySchema = group("The summary command: summarises the chat's last messages on demand.", {
  commands: Type.Array(Type.String({ minLength: 1 }), {
    default: ["/summary", "/总结"],
    description: "Command words, optionally followed by a count (/总结 50); empty turns the command off.",
  }),
  count: count("Messages summarised when the command names no count", 100),
  maxCount: count("Most messages one command may ask for", 200),
  maxTranscriptChars: count("Most characters of transcript in one summary", 20_000),
});

/** How a replied turn uses the models: planner then replyer, or the planner's reply carrying the text. */
export const CHAT_MODES = ["planner", "single"] as const;
export type ChatMode = (typeof CHAT_MODES)[number];

export const chatModeSchema = stringEnum(CHAT_MODES, {
  default: "planner",
  description:
    'How a reply is written: "planner" (the planner decides, the replyer writes the text: two model calls per reply) or "single" (the planner\'s reply call carries the text itself, no replyer call: half the calls and latency, for small budgets and slow models).',
});

export const avoidRepeatingSchema = count(
  "The bot's own latest messages in the chat shown to the replyer as what not to say again; 0 shows none",
  5,
  0,
);

export const textChunkLimitSchema = count("Longest text message sent; longer replies are split", 4_500);

export const mentionAllSchema = Type.Boolean({
  default: false,
  description:
    "Let the bot's messages (replies, reminders, scheduled messages) @ everyone (@全体成员); off, such a mention a model or a reply extension wrote is removed before sending",
});

export const accessSchema = group(
  "Who the bot answers. A message from elsewhere is still stored as history but never starts a turn, command, summary or digest. The console playground is always answered.",
  {
    privateChats: Type.Boolean({ default: true, description: "Whether private chats are answered at all." }),
    allow: Type.Array(
      formattedString("access-rule", {
        description:
          '"group:<id>" or "user:<id>" (QQ; prefixed "onebot.<adapterId>:" for one adapter, "stdio:" for any stdio channel, "stdio.<pluginId>:" for one), or a whole source: "onebot", "onebot.<adapterId>", "stdio", "stdio.<pluginId>".',
      }),
      {
        default: [],
        description:
          "Sources answered: a message is answered when its group, its sender or where it comes from (platform, OneBot adapter, stdio channel plugin) is listed. Empty means everyone.",
      },
    ),
    deny: Type.Array(
      formattedString("access-rule", { description: "A source, in the forms of access.allow." }),
      {
        default: [],
        description:
          "Sources never answered, in the forms of access.allow; a match here wins over access.allow.",
      },
    ),
  },
);

const money = (description: string) =>
  Type.Number({
    minimum: 0,
    default: 0,
    description: `${description}, in llm.prices' currency; 0 means no limit`,
  });

export const limitsSchema = group(
  "Rate limits, token budgets and money budgets. Over a limit the bot starts no turn (and a running turn that crosses a budget makes no further model call); the timeline shows why.",
  {
    userTurnsPerMinute: count(
      "Most turns one user may start in any 60 seconds, in all chats; 0 means no limit",
      6,
      0,
    ),
    groupTurnsPerMinute: count(
      "Most turns one group chat may start in any 60 seconds; 0 means no limit",
      20,
      0,
    ),
    dailyTokens: count(
      "Most tokens (prompt plus completion) all LLM calls may use per day, after which no turn starts; the day is chat.timezone's; 0 means no limit",
      0,
      0,
    ),
    groupDailyTokens: count(
      "Most tokens the turns of one group chat may use per day; 0 means no limit",
      0,
      0,
    ),
    userDailyTokens: count(
      "Most tokens the turns one user starts may use per day, in all chats, private ones included; a turn that crosses it stops before its next model call; 0 means no limit",
      0,
      0,
    ),
    dailyCost: money("Most all LLM calls may cost per day (at llm.prices), after which no turn starts"),
    monthlyCost: money("Most all LLM calls may cost per calendar month of chat.timezone"),
    groupDailyCost: money("Most the turns of one group chat may cost per day"),
    groupMonthlyCost: money("Most the turns of one group chat may cost per calendar month"),
    userDailyCost: money("Most the turns one user starts may cost per day, in all chats"),
    economyAt: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.8,
      description:
        "Share of a budget (tokens or money) after which the chat's or user's turns run on llm.models.economy, and the admins are told once in private that a group reached it; 0 turns stepping down off.",
    }),
    notify: Type.Boolean({
      default: true,
      description: "Say once per chat that a limit was reached (until it clears); off: stay silent.",
    }),
  },
);

export type TriggersConfig = Static<typeof triggersSchema>;
export type RealtimeSettings = Static<typeof realtimeSchema>;
export type DigestSettings = Static<typeof digestSchema>;
export type SummarySettings = Static<typeof summarySchema>;
export type AccessSettings = Static<typeof accessSchema>;
export type LimitSettings = Static<typeof limitsSchema>;
