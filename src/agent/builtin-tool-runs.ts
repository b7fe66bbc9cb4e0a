import type { Ajv } from "ajv";
import type { ChatMode } from "../chat/config.ts";
import { schemaValidator } from "../components/builders.ts";
import { HOST_COMMANDS_OWNER } from "../components/command-registry.ts";
import type { ToolComponent } from "../components/types.ts";
import type { KnowledgeSettings } from "../knowledge/config.ts";
import type { KnowledgeService } from "../knowledge/knowledge-service.ts";
import type { ToolSpec } from "../llm/types.ts";
import { type StickerCollection, stickerSegment } from "../media/sticker-collection.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import { memoryToolSpecs, RECALL_TOOL, REMEMBER_TOOL, runMemoryTool } from "../memory/memory-tools.ts";
import { type PromptTemplates, shippedPromptTemplates } from "../prompts/templates.ts";
import type { ReminderService } from "../reminders/reminder-service.ts";
import type { ReplyStage } from "../reply/reply-stage.ts";
import {
  type BuiltinCall,
  type BuiltinTool,
  builtinToolSpecs,
  MAX_WAIT_SECONDS,
  stickerToolSpec,
  type ToolRun,
  type ToolTexts,
  toolSearchSpec,
} from "./builtin-tools.ts";
import { generateImageTool, type ImageToolDeps } from "./image-tool.ts";
import { searchKnowledgeTool } from "./knowledge-tool.ts";
import { pokeBack, pokeOfBot, pokeToolSpec } from "./poke-tool.ts";
import { runReply } from "./reply-tool.ts";
import { runScheduleTool, scheduleToolSpec } from "./schedule-tool.ts";
import { type SearchToolDeps, searchTools } from "./search-tools.ts";
import type { VoiceSpeaking } from "./voice-speaking.ts";
import { sendVoiceTool } from "./voice-tool.ts";

/** What the built-in tools' rules and runs use beside their turn. */
export interface BuiltinToolDeps {
  /** Compiles the tools' argument schemas: the schema machinery plugin tools are checked by. */
  ajv: Ajv;
  /** `chat.mode` in force: the reply call's arguments follow it. */
  mode: () => ChatMode;
  replyStage: ReplyStage;
  /** `send_sticker` is offered where stickers are on and one is kept. */
  stickers: StickerCollection;
  /** `remember` and `recall` are offered while memory is enabled. */
  memory: MemoryService;
  /** `search_knowledge`, offered where a document's scope admits the chat. */
  knowledge: { service: KnowledgeService; settings: () => KnowledgeSettings };
  /** `web_search` and `fetch_page`, offered while a search provider is configured. */
  search: SearchToolDeps;
  /** `schedule` is offered while reminders are enabled. */
  reminders: ReminderService;
  /** `send_voice` and `generate_image`, offered where a tts or an image model is set. */
  media: { voice: VoiceSpeaking; images: ImageToolDeps };
  /** Keeping groups in order (src/manage/): each offered by its own rule of who asked and where. */
  groupTools: Array<Pick<BuiltinTool, "spec" | "offered" | "run" | "withheld">>;
}

/** A built-in tool as written here: its declaration, rule and run. */
interface Definition {
  spec: BuiltinTool["spec"];
  offered: BuiltinTool["offered"];
  run: BuiltinTool["run"];
  withheld?: BuiltinTool["withheld"];
  perTurn?: boolean;
}

/**
 * The planner's built-in tools in the order they are declared, each with its "offered when"
 * rule. Their arguments are checked against their declared schemas (compiled at the first call
 * in each chat mode; `plugin_options` is left to the reply extensions, which check their own).
 */
export function createBuiltinTools(deps: BuiltinToolDeps): BuiltinTool[] {
  const always = () => true;
  const basic = (index: number) => (texts: ToolTexts) =>
    builtinToolSpecs(texts.prompts, texts.mode, texts.pluginOptions)[index]!;
  const remembering = (index: number): Definition => ({
    spec: (texts) => memoryToolSpecs(texts.prompts)[index]!,
    offered: () => deps.memory.enabled(),
    run: (args, call) => memoryTool(args, call, deps.memory, [REMEMBER_TOOL, RECALL_TOOL][index]!),
  });
  const definitions: Definition[] = [
    { spec: basic(0), offered: always, run: (args, call) => runReply(args, call, deps.replyStage) },
    { spec: basic(1), offered: always, run: noReply },
    { spec: basic(2), offered: always, run: wait },
    {
      spec: (texts) => stickerToolSpec(texts.prompts),
      offered: (round) => deps.stickers.offeredIn(round.session.sessionId),
      run: (args, call) => sendSticker(args, call, deps.stickers),
    },
    remembering(0),
    remembering(1),
    {
      spec: (texts) => scheduleToolSpec(texts.prompts),
      offered: () => deps.reminders.enabled(),
      run: (args, call) => runScheduleTool(args, call, deps.reminders),
    },
    {
      spec: (texts) => pokeToolSpec(texts.prompts),
      offered: (round) => pokeOfBot(round.batch) !== undefined,
      perTurn: true,
      run: async (_args, call) => {
        const poked = await pokeBack(call.turn);
        if (poked === undefined) return call.invalid("nobody poked you in this turn");
        return { output: { output: poked } };
      },
    },
    {
      spec: (texts) => toolSearchSpec(texts.prompts),
      offered: (round) => round.deferring,
      run: async (args, call) => {
        const query = (args.query as string).trim();
        if (query === "") return call.invalid("query must be a non-empty string");
        return { output: { output: call.plugins.searchTools(query) } };
      },
    },
    searchKnowledgeTool(deps.knowledge.service, deps.knowledge.settings),
    ...searchTools(deps.search),
    sendVoiceTool(deps.media.voice),
    generateImageTool(deps.media.images),
    // Offered by who asks: per turn.
    ...deps.groupTools.map((tool) => ({ ...tool, perTurn: true })),
  ];
  // The schemas' texts do not change what they accept: the shipped ones stand for any.
  const prompts = shippedPromptTemplates("en");
  return definitions.map((definition) => builtinTool(definition, prompts, deps.ajv, deps.mode));
}

function builtinTool(
  definition: Definition,
  prompts: PromptTemplates,
  ajv: Ajv,
  mode: () => ChatMode,
): BuiltinTool {
  const specOf = (chatMode: ChatMode): ToolSpec =>
    definition.spec({ prompts, mode: chatMode, pluginOptions: { type: "object" } });
  // Compiled at the tool's first call in a mode: a start-up does not pay for tools never called.
  const validators: Partial<Record<ChatMode, ToolComponent["validate"]>> = {};
  const validatorOf = (chatMode: ChatMode) => {
    validators[chatMode] ??= schemaValidator(ajv, specOf(chatMode).parameters);
    return validators[chatMode];
  };
  const { name, description, parameters } = specOf("planner");
  return {
    kind: "tool",
    pluginId: HOST_COMMANDS_OWNER,
    name,
    fullName: `${HOST_COMMANDS_OWNER}.${name}`,
    description,
    scope: { chatScope: "all" },
    parameters,
    validate: (args) => validatorOf(mode())(args),
    ...definition,
  };
}

async function noReply(args: Record<string, unknown>): Promise<ToolRun> {
  const reason = (args.reason as string) || "no reason given";
  return { output: { output: "ok" }, outcome: { status: "silent", reason: `no_reply: ${reason}` } };
}

/**
 * Waits up to `seconds` for the session's next messages, which join this turn: at most
 * MAX_WAIT_SECONDS per call and `agent.maxWaitSeconds` in all per turn, so a prompt injection
 * asking to wait again and again cannot hold the chat.
 */
async function wait(args: Record<string, unknown>, call: BuiltinCall): Promise<ToolRun> {
  const { turn, waited } = call;
  const { prompts, maxWaitSeconds } = turn.settings;
  const leftMs = maxWaitSeconds * 1000 - waited.ms;
  if (leftMs <= 0) {
    return {
      output: { output: prompts.render("result_wait_spent", { max_seconds: String(maxWaitSeconds) }) },
    };
  }
  const started = Date.now();
  const deadline = started + Math.min((args.seconds as number) * 1000, MAX_WAIT_SECONDS * 1000, leftMs);
  try {
    while (Date.now() < deadline && !turn.signal.aborted) {
      const arrived = await turn.absorb();
      if (arrived) {
        const messages = arrived.map((message) => turn.labelledLine(message)).join("\n");
        return { output: { output: prompts.render("result_wait_arrived", { messages }) } };
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(0, deadline - Date.now()))));
    }
    return { output: { output: prompts.render("result_wait_empty") } };
  } finally {
    waited.ms += Date.now() - started;
  }
}

/**
 * send_sticker: the kept sticker that fits the emotion or description best, sent through the
 * outbox (journalled like every send). The planner reads what was sent and may still reply.
 */
async function sendSticker(
  args: Record<string, unknown>,
  call: BuiltinCall,
  stickers: StickerCollection,
): Promise<ToolRun> {
  const { turn } = call;
  const emotion = ((args.emotion as string | undefined) ?? "").trim();
  const description = ((args.description as string | undefined) ?? "").trim();
  if (emotion === "" && description === "") return call.invalid("give an emotion or a description");
  const prompts = turn.settings.prompts;
  const chosen = await stickers.choose({ emotion, description }, turn.batch.sessionId);
  if (!chosen) return { output: { output: prompts.render("result_sticker_none") } };
  const { sticker, bytes } = chosen;
  const sent = await turn.replies.sendMessage(turn.origin(), [stickerSegment(sticker, bytes)]);
  call.plugins.sentByTools.push(sent.messageId);
  await stickers.sent(sticker, sent.messageId, { replyId: turn.replyId, sessionId: turn.batch.sessionId });
  return { output: { output: prompts.render("result_sticker_sent", { description: sticker.description }) } };
}

/** remember / recall: long-term memory of the people in this chat and of the group. */
async function memoryTool(
  args: Record<string, unknown>,
  call: BuiltinCall,
  memory: MemoryService,
  name: string,
): Promise<ToolRun> {
  const { turn } = call;
  const target = await turn.findTarget(undefined);
  if (!target) return call.invalid("no message to remember for");
  const result = await runMemoryTool(
    memory,
    name,
    args,
    {
      replyId: turn.replyId,
      messages: turn.batch.messages,
      target,
      scene: await turn.memoryScene(),
      nameOf: (userId) => turn.nameOf(userId),
    },
    turn.settings.prompts,
  );
  if ("problem" in result) return call.invalid(result.problem);
  if ("refused" in result) {
    // Not a malformed call: the model may tell the user, and the turn goes on.
    const output = turn.settings.prompts.render("result_memory_refused", { reason: result.refused });
    return { output: { output, isError: true } };
  }
  return { output: { output: result.output } };
}
