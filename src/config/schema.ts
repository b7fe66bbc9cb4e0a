import { type Static, type TObject, type TProperties, Type } from "@sinclair/typebox";
import type { ConfigFormatName } from "./formats.ts";

/**
 * The whole config file as JSON Schema (built with TypeBox). Every field has a description
 * and, where a value can be assumed, a default: validating `{}` with ajv's `useDefaults`
 * yields a complete config. Objects reject unknown keys so typos are reported, except the
 * free-form maps `plugins.config` and `llm.providers[].headers`.
 */

/** A string from a fixed list, as a plain `enum` (clearer errors and forms than a union). */
function stringEnum<const Values extends readonly string[]>(
  values: Values,
  options: { description: string; default?: Values[number] },
) {
  return Type.Unsafe<Values[number]>({ type: "string", enum: [...values], ...options });
}

function formattedString(format: ConfigFormatName, options: { description: string; default?: string }) {
  return Type.String({ format, ...options });
}

function milliseconds(description: string, defaultValue: number, minimum = 1) {
  return Type.Integer({ minimum, default: defaultValue, description: `${description} (milliseconds)` });
}

function count(description: string, defaultValue: number, minimum = 1) {
  return Type.Integer({ minimum, default: defaultValue, description });
}

/** A group of keys; absent groups are filled from their members' defaults. */
function group<Properties extends TProperties>(description: string, properties: Properties) {
  return Type.Object(properties, { description, default: {}, additionalProperties: false });
}

/**
 * One object per value of `tag`, validated with ajv's `discriminator`: only the variant the
 * tag names is checked, so errors are about that variant and defaults come from it.
 */
function taggedUnion<const Variants extends TObject[]>(
  tag: string,
  tagValues: readonly string[],
  variants: [...Variants],
  options: { description: string; tagDefault?: string },
) {
  return Type.Unsafe<Static<Variants[number]>>({
    type: "object",
    description: options.description,
    required: [tag],
    properties: {
      [tag]: {
        type: "string",
        enum: [...tagValues],
        ...(options.tagDefault === undefined ? {} : { default: options.tagDefault }),
      },
    },
    discriminator: { propertyName: tag },
    oneOf: variants,
  });
}

const serverSchema = group("The one HTTP server: console, API, /healthz and the OneBot reverse WebSocket.", {
  host: Type.String({
    minLength: 1,
    default: "127.0.0.1",
    description: "Address to listen on; a non-loopback address requires server.token.",
  }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 6180, description: "Port; 0 picks a free one." }),
  token: Type.String({
    default: "",
    writeOnly: true,
    description: "Bearer token for the console and /api/; empty means no token (loopback only).",
  }),
  allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description:
      'With no token: host names besides loopback ones that requests may be addressed to, "host" (any port) or "host:port", e.g. behind a reverse proxy.',
  }),
});

const storageSchema = group("Where messages and state are stored.", {
  url: formattedString("sqlite-url", {
    default: "sqlite:./data/tsumugi.db",
    description: 'Database: "sqlite:PATH" (relative to the working directory) or "sqlite::memory:".',
  }),
  retention: group(
    "How many chat messages are kept; the rest are deleted in small steps in the background.",
    {
      days: count("Delete messages older than this many days; 0 keeps them however old", 0, 0),
      messagesPerSession: count(
        "Keep at most this many newest messages per chat; 0 means no limit",
        100_000,
        0,
      ),
    },
  ),
  spoolSize: count(
    "Rows per table kept in memory while the database cannot be written (locked, disk full, read-only); beyond it the oldest messages that triggered nothing are dropped first",
    50_000,
    100,
  ),
});

const botSchema = group("Who the bot is.", {
  name: Type.String({
    minLength: 1,
    default: "紬",
    description: "The bot's name; mentioning it triggers a reply.",
  }),
  aliases: Type.Array(Type.String({ minLength: 1 }), {
    default: ["tsumugi"],
    description: "Other names that count as mentioning the bot.",
  }),
  persona: Type.String({
    default: "你是群里的一名普通成员，说话简短自然。",
    description: "Persona prompt, placed first in every prompt.",
  }),
  admins: Type.Array(
    formattedString("admin-id", {
      description:
        'A QQ user ("10001" = "onebot:10001", any OneBot adapter), "onebot.<adapterId>:10001" (that adapter only) or "stdio.<pluginId>:<userId>" (a user of that stdio channel plugin).',
    }),
    {
      default: [],
      description:
        'Users allowed to run admin commands, e.g. ["10001"]: a bare id is a QQ (OneBot) user; a stdio channel\'s users are admins only when named with the plugin, as "stdio.<pluginId>:<userId>".',
    },
  ),
});

const adapterCommon = {
  type: stringEnum(["onebot"], { default: "onebot", description: "Protocol: OneBot v11." }),
  id: formattedString("identifier", {
    default: "qq",
    description: "Adapter id, unique among adapters; shown in /healthz and logs.",
  }),
  accessToken: Type.String({
    default: "",
    writeOnly: true,
    description:
      "OneBot access token (Authorization: Bearer …); empty means none. Required for reverse-ws when server.host is not loopback.",
  }),
  actionTimeoutMs: milliseconds("How long to wait for the answer to an API call", 30_000),
};

const reverseWsAdapterSchema = Type.Object(
  {
    ...adapterCommon,
    mode: Type.Literal("reverse-ws"),
    path: formattedString("url-path", {
      default: "/onebot/v11/ws",
      description: "Path on server.port where the implementation connects.",
    }),
    url: Type.Optional(
      Type.String({ description: "Not used in reverse-ws mode (kept so switching mode is one edit)." }),
    ),
  },
  { additionalProperties: false },
);

const forwardWsAdapterSchema = Type.Object(
  {
    ...adapterCommon,
    mode: Type.Literal("forward-ws"),
    url: formattedString("ws-url", { description: "WebSocket URL the implementation listens on." }),
    reconnect: group("Back-off between reconnect attempts, doubling from min to max.", {
      minDelayMs: milliseconds("First delay", 1_000),
      maxDelayMs: milliseconds("Longest delay", 30_000),
    }),
  },
  { additionalProperties: false },
);

const httpAdapterSchema = Type.Object(
  {
    ...adapterCommon,
    mode: Type.Literal("http"),
    url: formattedString("http-url", {
      description: "Base URL of the implementation's HTTP API, e.g. http://127.0.0.1:3000.",
    }),
    path: formattedString("url-path", {
      default: "/onebot/v11/http",
      description: "Path on server.port where the implementation POSTs events.",
    }),
    secret: Type.String({
      default: "",
      writeOnly: true,
      description:
        "HMAC secret checked against the X-Signature header of event POSTs; empty means none. Required when server.host is not loopback.",
    }),
  },
  { additionalProperties: false },
);

const adapterSchema = taggedUnion(
  "mode",
  ["reverse-ws", "forward-ws", "http"],
  [reverseWsAdapterSchema, forwardWsAdapterSchema, httpAdapterSchema],
  { description: "One OneBot v11 connection.", tagDefault: "reverse-ws" },
);

const providerCommon = {
  id: formattedString("identifier", {
    description: 'Provider id, the part before "/" in llm.models entries.',
  }),
  timeoutMs: milliseconds("Limit for one request", 60_000),
};

const remoteProviderCommon = {
  ...providerCommon,
  apiKey: Type.String({ default: "", writeOnly: true, description: "API key; empty means none." }),
  maxRetries: count("Retries after a failed request", 2, 0),
  // Header values are secrets: Authorization, x-api-key and the like carry keys.
  headers: Type.Record(Type.String(), Type.String({ writeOnly: true }), {
    default: {},
    description: "Extra HTTP headers sent with every request.",
  }),
};

const openAiCompatibleProviderSchema = Type.Object(
  {
    ...remoteProviderCommon,
    type: Type.Literal("openai-compatible"),
    baseUrl: formattedString("http-url", { description: "API base URL, e.g. https://api.deepseek.com/v1." }),
  },
  { additionalProperties: false },
);

const vendorProviderSchema = Type.Object(
  {
    ...remoteProviderCommon,
    type: stringEnum(["openai", "gemini", "anthropic"], { description: "Vendor API." }),
    baseUrl: Type.Optional(
      formattedString("http-url", { description: "API base URL; the vendor's own when absent." }),
    ),
  },
  { additionalProperties: false },
);

const llamaCppProviderSchema = Type.Object(
  {
    ...providerCommon,
    type: Type.Literal("llama-cpp"),
    model: Type.String({
      minLength: 1,
      description:
        'GGUF model run in-process: a .gguf path, or a recommended model by name (e.g. "qwen2.5-1.5b-instruct-q4", fetched with npm run model -- pull).',
    }),
    threads: count(
      "CPU threads; 0 means one per physical core but one, which the bot itself needs (more only slows generation)",
      0,
      0,
    ),
    contextSize: count("Context window in tokens", 8192),
    gpu: Type.Unsafe<"auto" | false>({
      enum: ["auto", false],
      default: "auto",
      description: 'GPU offloading: "auto" uses one when available, false runs on the CPU only.',
    }),
  },
  { additionalProperties: false },
);

const providerSchema = taggedUnion(
  "type",
  ["openai-compatible", "openai", "gemini", "anthropic", "llama-cpp"],
  [openAiCompatibleProviderSchema, vendorProviderSchema, llamaCppProviderSchema],
  { description: "One LLM provider." },
);

const modelRefList = (description: string) =>
  Type.Array(formattedString("model-ref", { description: '"provider/model", split at the first "/".' }), {
    default: [],
    description,
  });

const modelsSchema = Type.Unsafe<{ planner: string[]; replyer: string[]; [task: string]: string[] }>(
  Type.Object(
    {
      planner: modelRefList("Models that decide what to do, tried in order."),
      replyer: modelRefList("Models that write the reply text, tried in order."),
    },
    {
      default: {},
      additionalProperties: modelRefList("Models for this task, tried in order."),
      description: "Task → ordered fallback list of models. An empty list means the bot stays silent.",
    },
  ),
);

const pricesSchema = Type.Record(
  Type.String(),
  Type.Object(
    {
      input: Type.Number({ minimum: 0, description: "Price of a million prompt tokens." }),
      output: Type.Number({ minimum: 0, description: "Price of a million completion tokens." }),
    },
    { additionalProperties: false },
  ),
  {
    default: {},
    description:
      '"provider/model" → { input, output } prices per million tokens, for the console\'s cost estimate.',
  },
);

const llmSchema = group("Language models.", {
  providers: Type.Array(providerSchema, { default: [], description: "Where models are served." }),
  models: modelsSchema,
  prices: pricesSchema,
});

const agentSchema = group("The planner loop.", {
  maxRounds: count("Most planner calls in one turn", 8),
  turnTimeoutMs: milliseconds("Limit for one whole turn", 120_000),
  recoverWithinMs: milliseconds(
    "After a crash, turns whose trigger is younger than this are run again; older ones are marked interrupted (0: never run again)",
    120_000,
    0,
  ),
});

const chatSchema = group("How the bot reads and answers chats.", {
  triggers: group("What makes the bot answer right away.", {
    mention: Type.Boolean({ default: true, description: "An @ of the bot, or its name or an alias." }),
    replyToSelf: Type.Boolean({ default: true, description: "A reply to one of the bot's messages." }),
    keywords: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: "Words that trigger the bot when a message contains them.",
    }),
    privateAlways: Type.Boolean({ default: true, description: "Every private message." }),
  }),
  realtime: group("Batching of triggered messages: a trigger opens a window that collects follow-ups.", {
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
  }),
  digest: group("Periodic look at untriggered group chatter.", {
    enabled: Type.Boolean({
      default: false,
      description: "Whether the bot reads along without being triggered.",
    }),
    intervalMs: milliseconds("Time between digests", 300_000),
    minMessages: count("Fewest new messages worth a digest", 3),
    maxMessages: count("Most messages in one digest", 50),
    maxTranscriptChars: count("Most characters of transcript in one digest", 20_000),
  }),
  history: group("Recent messages shown to the models.", {
    maxMessages: count("Most history messages", 20, 0),
    maxChars: count("Most history characters", 4_000, 0),
  }),
  quote: group("Fetching quoted messages and merged forwards.", {
    enabled: Type.Boolean({ default: true, description: "Fetch the message a reply quotes." }),
    resolveForward: Type.Boolean({ default: true, description: "Expand merged forwards." }),
    maxDepth: count("Deepest nesting of forwards to expand", 2, 0),
    maxNodes: count("Most forwarded messages to expand", 20),
    maxChars: count("Most characters of quoted text", 4_000),
    timeoutMs: milliseconds("Limit for each fetch", 10_000),
  }),
  summary: group("The summary command: summarises the chat's last messages on demand.", {
    commands: Type.Array(Type.String({ minLength: 1 }), {
      default: ["/summary", "/总结"],
      description: "Command words, optionally followed by a count (/总结 50); empty turns the command off.",
    }),
    count: count("Messages summarised when the command names no count", 100),
    maxCount: count("Most messages one command may ask for", 200),
    maxTranscriptChars: count("Most characters of transcript in one summary", 20_000),
  }),
  timezone: formattedString("time-zone", {
    default: "",
    description:
      'IANA time zone of every time the models read (history, quote blocks, the current time), e.g. "Asia/Shanghai"; empty means the system\'s.',
  }),
  textChunkLimit: count("Longest text message sent; longer replies are split", 4_500),
});

const accessSchema = group(
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

const limitsSchema = group(
  "Rate limits and daily token budgets. Over a limit the bot starts no turn and the timeline shows why.",
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
    notify: Type.Boolean({
      default: true,
      description: "Say once per chat that a limit was reached (until it clears); off: stay silent.",
    }),
  },
);

const pluginsSchema = group("Plugins.", {
  dirs: Type.Array(Type.String({ minLength: 1 }), {
    default: ["./plugins"],
    description: "Folders whose sub-folders are plugins.",
  }),
  disabled: Type.Array(
    formattedString("plugin-ref", { description: '"pluginId" or "pluginId.component".' }),
    {
      default: [],
      description: "Plugins or single components that are not loaded.",
    },
  ),
  config: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
    default: {},
    description: "Plugin id → that plugin's config object (checked against the plugin's own schema).",
  }),
});

const monitorSchema = group("The monitor: what each turn did, kept for the console's timeline.", {
  maxEvents: count("Most monitor events kept; the oldest are deleted beyond this", 10_000),
  maxAgeHours: count("Monitor events older than this many hours are deleted", 72),
});

const logSchema = group("Logging.", {
  level: stringEnum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
    default: "info",
    description: "Lowest level written.",
  }),
});

export const configJsonSchema = Type.Object(
  {
    server: serverSchema,
    storage: storageSchema,
    bot: botSchema,
    adapters: Type.Array(adapterSchema, {
      default: [{ type: "onebot", id: "qq", mode: "reverse-ws", path: "/onebot/v11/ws" }],
      description: "OneBot connections; ids must be unique.",
    }),
    llm: llmSchema,
    agent: agentSchema,
    chat: chatSchema,
    access: accessSchema,
    limits: limitsSchema,
    plugins: pluginsSchema,
    monitor: monitorSchema,
    log: logSchema,
  },
  { additionalProperties: false, description: "Tsumugi configuration." },
);

export type TsumugiConfig = Static<typeof configJsonSchema>;
export type AdapterConfig = TsumugiConfig["adapters"][number];
export type LlmProviderConfig = TsumugiConfig["llm"]["providers"][number];
export type ChatConfig = TsumugiConfig["chat"];
