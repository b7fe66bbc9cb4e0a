import { type Static, Type } from "@sinclair/typebox";
import { adaptersSchema } from "../adapters/config.ts";
import { agentSchema, botSchema } from "../agent/config.ts";
import {
  accessSchema,
  avoidRepeatingSchema,
  chatModeSchema,
  digestSchema,
  historySchema,
  limitsSchema,
  mentionAllSchema,
  realtimeSchema,
  summarySchema,
  textChunkLimitSchema,
  triggersSchema,
} from "../chat/config.ts";
import { joinRequestsSchema, manageSchema, welcomeSchema } from "../chat/manage-config.ts";
import { clusterSchema } from "../cluster/config.ts";
import { quoteSchema, timezoneSchema } from "../context/config.ts";
import { expressionsSchema } from "../expressions/config.ts";
import { knowledgeSchema } from "../knowledge/config.ts";
import { llmSchema } from "../llm/config.ts";
import { logSchema } from "../log/config.ts";
import { mcpSchema } from "../mcp/config.ts";
import { mediaSchema } from "../media/config.ts";
import { stickersSchema } from "../media/sticker-config.ts";
import { memorySchema } from "../memory/config.ts";
import { monitorSchema } from "../monitor/config.ts";
import { chatGroupsSchema, otherBotsSchema, participationSchema } from "../participation/config.ts";
import { pluginsSchema } from "../plugins/config.ts";
import { promptsSchema } from "../prompts/config.ts";
import { remindersSchema, schedulesSchema } from "../reminders/config.ts";
import { typingDelaySchema } from "../reply/typing-delay.ts";
import { group } from "../schema/fields.ts";
import { searchSchema } from "../search/config.ts";
import { serverSchema } from "../server/config.ts";
import { storageSchema } from "../store/config.ts";

/**
 * The whole config file as JSON Schema (built with TypeBox), composed from the fragments the
 * modules own. Every field has a description and, where a value can be assumed, a default:
 * validating `{}` with ajv's `useDefaults` yields a complete config. Objects reject unknown
 * keys so typos are reported, except the free-form maps `plugins.config` and
 * `llm.providers[].headers`.
 */

const chatSchema = group("How the bot reads and answers chats.", {
  mode: chatModeSchema,
  triggers: triggersSchema,
  realtime: realtimeSchema,
  digest: digestSchema,
  history: historySchema,
  expressions: expressionsSchema,
  avoidRepeating: avoidRepeatingSchema,
  typingDelay: typingDelaySchema,
  quote: quoteSchema,
  summary: summarySchema,
  timezone: timezoneSchema,
  textChunkLimit: textChunkLimitSchema,
  mentionAll: mentionAllSchema,
  participation: participationSchema,
  otherBots: otherBotsSchema,
  welcome: welcomeSchema,
  joinRequests: joinRequestsSchema,
  manage: manageSchema,
  groups: chatGroupsSchema,
});

export const configJsonSchema = Type.Object(
  {
    server: serverSchema,
    storage: storageSchema,
    bot: botSchema,
    adapters: adaptersSchema,
    llm: llmSchema,
    media: mediaSchema,
    stickers: stickersSchema,
    memory: memorySchema,
    knowledge: knowledgeSchema,
    search: searchSchema,
    reminders: remindersSchema,
    schedules: schedulesSchema,
    agent: agentSchema,
    prompts: promptsSchema,
    chat: chatSchema,
    access: accessSchema,
    limits: limitsSchema,
    plugins: pluginsSchema,
    mcp: mcpSchema,
    cluster: clusterSchema,
    monitor: monitorSchema,
    log: logSchema,
  },
  { additionalProperties: false, description: "Tsumugi configuration." },
);

export type TsumugiConfig = Static<typeof configJsonSchema>;
