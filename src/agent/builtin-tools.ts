import type { ChatMode } from "../chat/config.ts";
import type { ToolSpec } from "../llm/types.ts";
import { RECALL_TOOL, REMEMBER_TOOL } from "../memory/memory-tools.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { POKE_TOOL } from "./poke-tool.ts";

export const REPLY_TOOL = "reply";
export const NO_REPLY_TOOL = "no_reply";
export const WAIT_TOOL = "wait";
export const SEND_STICKER_TOOL = "send_sticker";
/** Names no plugin tool may take. */
export const BUILTIN_TOOL_NAMES = [
  REPLY_TOOL,
  NO_REPLY_TOOL,
  WAIT_TOOL,
  SEND_STICKER_TOOL,
  REMEMBER_TOOL,
  RECALL_TOOL,
  POKE_TOOL,
];

/** Longest a `wait` call may pause a turn, whatever the model asks for. */
export const MAX_WAIT_SECONDS = 60;

export interface ReplyArguments {
  msg_id?: string;
  set_quote?: boolean;
  intent?: string;
  /** Single mode: the reply's text itself. */
  text?: string;
  plugin_options?: Record<string, unknown>;
}

/**
 * The planner's built-in tools (DESIGN §5). `pluginOptions` is the reply extensions' schema,
 * when any. In single mode the reply call carries the `text` to send instead of an `intent`
 * for the replyer.
 */
export function builtinToolSpecs(
  prompts: PromptTemplates,
  mode: ChatMode,
  pluginOptions?: Record<string, unknown>,
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
