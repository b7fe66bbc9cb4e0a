import type { ToolSpec } from "../llm/types.ts";

export const REPLY_TOOL = "reply";
export const NO_REPLY_TOOL = "no_reply";
export const WAIT_TOOL = "wait";

/** Longest a `wait` call may pause a turn, whatever the model asks for. */
export const MAX_WAIT_SECONDS = 60;

export interface ReplyArguments {
  msg_id?: string;
  set_quote?: boolean;
  intent?: string;
  plugin_options?: Record<string, unknown>;
}

/** The planner's built-in tools (DESIGN §5). `pluginOptions` is the reply extensions' schema, when any. */
export function builtinToolSpecs(pluginOptions?: Record<string, unknown>): ToolSpec[] {
  const replyProperties: Record<string, unknown> = {
    msg_id: {
      type: "string",
      description: "要回复的消息的 msg_id；省略时回复触发本轮的最新消息。",
    },
    set_quote: {
      type: "boolean",
      description: "是否引用（回复）该消息发送；多人同时说话时用来指明在回谁。默认 false。",
      default: false,
    },
    intent: {
      type: "string",
      description: "你想表达的要点（一句话），写回复的人会据此措辞。",
    },
  };
  if (pluginOptions) replyProperties.plugin_options = pluginOptions;
  return [
    {
      name: REPLY_TOOL,
      description: "发送一条回复到当前聊天。调用后本轮结束。",
      parameters: { type: "object", properties: replyProperties, additionalProperties: false },
    },
    {
      name: NO_REPLY_TOOL,
      description: "这次不说话（话题与你无关、别人没在问你、或无需回应）。",
      parameters: {
        type: "object",
        properties: { reason: { type: "string", description: "不回复的原因" } },
        required: ["reason"],
        additionalProperties: false,
      },
    },
    {
      name: WAIT_TOOL,
      description: `等待对方把话说完再决定（最多 ${MAX_WAIT_SECONDS} 秒），期间的新消息会告诉你。`,
      parameters: {
        type: "object",
        properties: { seconds: { type: "number", minimum: 0, description: "等待的秒数" } },
        required: ["seconds"],
        additionalProperties: false,
      },
    },
  ];
}
