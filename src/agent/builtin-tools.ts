import type { Batch } from "../chat/batch.ts";
import type { ChatMode } from "../chat/config.ts";
import type { SessionRef, ToolComponent } from "../components/types.ts";
import type { LlmToolResult, ToolSpec } from "../llm/types.ts";
import type { MemoryScene } from "../memory/visibility.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { SessionOrigin } from "../reply/outbox.ts";
import type { TurnReplies } from "../reply/reply-stage.ts";
import type { JsonSchema, PreReplyGenerateInput } from "../sdk/types.ts";
import type { TurnPromptInput } from "./prompt.ts";
import type { AgentSettings } from "./settings.ts";
import type { TurnOutcome } from "./turn-outcome.ts";

export const REPLY_TOOL = "reply";
export const NO_REPLY_TOOL = "no_reply";
export const WAIT_TOOL = "wait";
export const SEND_STICKER_TOOL = "send_sticker";
export const TOOL_SEARCH_TOOL = "tool_search";

/** Longest a `wait` call may pause a turn, whatever the model asks for. */
export const MAX_WAIT_SECONDS = 60;

/** One tool call's result; `acted` marks a plugin tool that returned nothing (it has acted itself). */
export interface ToolRun {
  output: Pick<LlmToolResult, "output" | "isError">;
  outcome?: TurnOutcome;
  acted?: boolean;
}

/** What a built-in tool's "offered when" rule reads of the planner's round. */
export interface ToolRound {
  session: SessionRef;
  /** The turn's messages so far. */
  batch: Batch;
  /** The plugin tools are too many to declare them all: `tool_search` finds them. */
  deferring: boolean;
}

/** What a built-in tool's declaration is written from. */
export interface ToolTexts {
  /** The turn's templates: the tools' descriptions are in its language. */
  prompts: PromptTemplates;
  mode: ChatMode;
  /** The reply extensions' schema for `plugin_options`, while any is enabled in the session. */
  pluginOptions?: JsonSchema;
}

/** What a built-in tool uses of the turn's plugins (agent/turn-plugins.ts). */
export interface TurnPluginAccess {
  readonly session: SessionRef;
  /** Messages tools sent themselves during the turn. */
  readonly sentByTools: string[];
  /** PreReplyGenerate: hooks see what the replyer is about to be asked. */
  generating(
    input: Pick<PreReplyGenerateInput, "reply_message_id" | "intent" | "extra_prompt">,
  ): Promise<void>;
  /** `tool_search`: ranks the deferred plugin tools, and makes the best ones callable. */
  searchTools(query: string): string;
}

/**
 * What a built-in tool uses of its turn (the turn object, TurnContext, which holds the tools
 * through its plugins: declared here so the two do not import each other).
 */
export interface ToolTurn {
  readonly replyId: string;
  readonly batch: Batch;
  readonly settings: AgentSettings;
  readonly signal: AbortSignal;
  readonly replies: TurnReplies;
  /** The session's newest messages, which join the turn (undefined: none arrived). */
  absorb(): Promise<ChatMessage[] | undefined>;
  origin(): SessionOrigin;
  findTarget(msgId: string | undefined): Promise<ChatMessage | undefined>;
  labelledLine(message: ChatMessage): string;
  line(message: ChatMessage): string;
  memoryScene(): Promise<MemoryScene>;
  nameOf(userId: string): Promise<string | undefined>;
  promptInput(): Promise<TurnPromptInput>;
}

/** One call of a built-in tool: its turn, and what the planner said beside it. */
export interface BuiltinCall {
  turn: ToolTurn;
  plugins: TurnPluginAccess;
  callId: string;
  /** The planner's text beside its calls: a reply's intent when the call gives none. */
  plannerText: string;
  /** How long `wait` calls have held this turn so far (updated by `wait`). */
  waited: { ms: number };
  /** Arguments the tool cannot use: the model is told, and a second such call fails the turn. */
  invalid(problem: string): ToolRun;
}

/**
 * A tool of the host itself, registered in the tool registry beside the plugins' (owner
 * `tsumugi`): its name is taken, its arguments are checked by the same schema machinery. The
 * planner turn runs it with the turn's state rather than through an `invoke`.
 */
export interface BuiltinTool extends ToolComponent {
  /** The "offered when" rule: whether the planner is offered — and may call — it this round. */
  offered(round: ToolRound): boolean | Promise<boolean>;
  /**
   * Offered by what the turn's messages are (a poke, who asks), not by the settings: declared
   * after the plugin tools, so that the declarations before it read the same turn after turn
   * and stay in the provider's prompt cache.
   */
  perTurn?: boolean;
  /** Its declaration for the turn, in the turn's words. */
  spec(texts: ToolTexts): ToolSpec;
  /** Runs a call whose arguments passed `validate`. */
  run(args: Record<string, unknown>, call: BuiltinCall): Promise<ToolRun>;
  /**
   * What a call gets in a round the tool was not offered in, instead of "unknown tool": a tool
   * kept from the turn's asker (the management tools) refuses in its answer.
   */
  withheld?(call: BuiltinCall): Promise<ToolRun>;
}

/**
 * reply, no_reply and wait (the planner's own tools), in the order they are declared.
 * `pluginOptions` is the reply extensions' schema, when any. In single mode the reply call
 * carries the `text` to send instead of an `intent` for the replyer.
 */
export function builtinToolSpecs(
  prompts: PromptTemplates,
  mode: ChatMode,
  pluginOptions?: JsonSchema,
): ToolSpec[] {
  const replyProperties: Record<string, unknown> = {
    msg_id: {
      type: "string",
      description: prompts.render("tool_reply_msg_id"),
    },
    set_quote: {
      type: "boolean",
      description: prompts.render("tool_reply_set_quote"),
      default: false,
    },
    ...(mode === "single"
      ? { text: { type: "string", minLength: 1, description: prompts.render("tool_reply_text") } }
      : { intent: { type: "string", description: prompts.render("tool_reply_intent") } }),
  };
  if (pluginOptions) replyProperties.plugin_options = pluginOptions;
  return [
    {
      name: REPLY_TOOL,
      description: prompts.render("tool_reply"),
      parameters: {
        type: "object",
        properties: replyProperties,
        ...(mode === "single" ? { required: ["text"] } : {}),
        additionalProperties: false,
      },
    },
    {
      name: NO_REPLY_TOOL,
      description: prompts.render("tool_no_reply"),
      parameters: {
        type: "object",
        properties: { reason: { type: "string", description: prompts.render("tool_no_reply_reason") } },
        required: ["reason"],
        additionalProperties: false,
      },
    },
    {
      name: WAIT_TOOL,
      description: prompts.render("tool_wait", { max_seconds: String(MAX_WAIT_SECONDS) }),
      parameters: {
        type: "object",
        properties: {
          seconds: { type: "number", minimum: 0, description: prompts.render("tool_wait_seconds") },
        },
        required: ["seconds"],
        additionalProperties: false,
      },
    },
  ];
}

/** `send_sticker`, offered beside the others where stickers are on and one is kept (stickers.*). */
export function stickerToolSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: SEND_STICKER_TOOL,
    description: prompts.render("tool_send_sticker"),
    parameters: {
      type: "object",
      properties: {
        emotion: { type: "string", description: prompts.render("tool_send_sticker_emotion") },
        description: { type: "string", description: prompts.render("tool_send_sticker_description") },
      },
      additionalProperties: false,
    },
  };
}

/** `tool_search`, offered while the plugin tools are deferred (agent.deferToolsAbove). */
export function toolSearchSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: TOOL_SEARCH_TOOL,
    description: prompts.render("tool_search"),
    parameters: {
      type: "object",
      properties: { query: { type: "string", description: prompts.render("tool_search_query") } },
      required: ["query"],
      additionalProperties: false,
    },
  };
}
