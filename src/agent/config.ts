import { Type } from "@sinclair/typebox";
import { count, formattedString, group, milliseconds } from "../schema/fields.ts";

export const botSchema = group("Who the bot is.", {
  name: Type.String({
    minLength: 1,
    default: "紬",
    description: "The bot's name; mentioning it triggers a reply.",
  }),
  aliases: Type.Array(Type.String({ minLength: 1 }), {
    default: ["tsumugi"],
    description: "Other names that count as mentioning the bot.",
  }),
  persona: Type.Optional(
    Type.String({
      description:
        "Persona prompt, part of every system prompt; absent: the `persona` template of prompts.language.",
    }),
  ),
  voice: Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 }), {
    default: {},
    description:
      'The persona\'s voice per speech provider id (llm.models.tts), e.g. { openai: "nova", siliconflow: "FunAudioLLM/CosyVoice2-0.5B:anna", edge: "zh-CN-XiaoyiNeural", sovits: "<a name in its voices>" }; a provider not named speaks in its default voice.',
  }),
  interests: Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description:
      "Topics the bot cares about: a message about one is likelier to make it join a conversation unasked (chat.participation).",
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

export const agentSchema = group("The planner loop.", {
  maxRounds: count("Most planner calls in one turn", 8),
  turnTimeoutMs: milliseconds("Limit for one whole turn", 120_000),
  maxWaitSeconds: count(
    "Most seconds the planner's wait tool may hold one turn, all its calls together (one call waits at most 60); then the planner is told to decide",
    30,
    0,
  ),
  recoverWithinMs: milliseconds(
    "After a crash, turns whose trigger is younger than this are run again; older ones are marked interrupted (0: never run again)",
    120_000,
    0,
  ),
  deferToolsAbove: count(
    "When more plugin and MCP tools than this apply to a chat, the planner is shown only agent.alwaysOnTools and a tool_search tool that finds the others for the rest of the turn (0: never defer)",
    20,
    0,
  ),
  alwaysOnTools: Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description:
      'Tools declared to the planner even while tools are deferred: tool names, or owners ("pluginId", "mcp:serverId") whose tools all stay.',
  }),
  toolSearchResults: count("Most tools one tool_search call returns", 5),
});
