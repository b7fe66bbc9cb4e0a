/**
 * The stdio protocol (JSON lines) as data: how a line from the plugin is read (a push or the
 * answer to the pending call) and the JSON Schemas every answer and push is checked against
 * once, here at the edge.
 */
import type { Ajv, ValidateFunction } from "ajv";

export type JsonObject = Record<string, unknown>;

/** A line from the plugin: a push (has `method`, no `result`/`error`) or the answer to the pending call. */
export type PluginLine =
  | { kind: "push"; method: string; params: JsonObject }
  | { kind: "answer"; answer: JsonObject };

export function classifyLine(value: unknown): PluginLine | undefined {
  if (!isJsonObject(value)) return undefined;
  if (typeof value.method === "string" && !("result" in value) && !("error" in value)) {
    return { kind: "push", method: value.method, params: isJsonObject(value.params) ? value.params : {} };
  }
  return { kind: "answer", answer: value };
}

/**
 * What a line over the length limit was meant to be, judged from its first bytes (its end
 * may never come): a push when its first key is `method`, as pushes are written (the stdio
 * protocol's examples, Go's PluginInbound), else the answer to the call in flight (Go's PluginResponse
 * and the examples' answers start with `result`, `error` or `tools`).
 */
export function oversizedLineKind(head: string): PluginLine["kind"] {
  return /^\s*\{\s*"method"\s*:/u.test(head) ? "push" : "answer";
}

/** The error an answer reports (`{"error": "…"}`), if any. */
export function answerError(answer: JsonObject): string | undefined {
  const error = answer.error;
  if (error === undefined || error === null || error === "") return undefined;
  return typeof error === "string" ? error : JSON.stringify(error);
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A tool as a plugin declares it (activate's `tools`, `channel_tools`); component options may ride along. */
export interface ToolDeclaration extends JsonObject {
  name: string;
  description?: string;
  parameters?: unknown;
}

export interface HookDeclaration extends JsonObject {
  event: string;
  matcher?: string;
  name?: string;
}

export interface EnricherDeclaration extends JsonObject {
  name: string;
  description?: string;
}

export interface ChannelProvider extends JsonObject {
  name?: string;
  config_schema?: unknown;
}

export interface ReplyExtensionDeclaration extends JsonObject {
  name: string;
  description?: string;
}

/** A chat command; `pattern` is a regular expression's source, used instead of `prefix`. */
export interface CommandDeclaration extends JsonObject {
  name: string;
  description?: string;
  prefix?: string | string[];
  pattern?: string;
  usage?: string;
  admin_only?: boolean;
}

/**
 * The answer to `activate`. Go plugins omit empty lists (`omitempty`) or send null. The
 * lists' entries are checked one by one (`ProtocolValidators.declaration`).
 */
export interface ActivateAnswer {
  tools?: unknown[] | null;
  hooks?: unknown[] | null;
  enrichers?: unknown[] | null;
  channel_provider?: ChannelProvider | null;
  reply_extensions?: unknown[] | null;
  commands?: unknown[] | null;
}

export interface ChannelInbound {
  message: string;
  chatId?: string | number;
  senderId?: string | number;
  senderName?: string;
  chatType?: "group" | "private";
}

export interface ChannelToolsPush {
  /** Checked one by one, as `activate`'s tools. */
  tools: unknown[];
}

export interface ChannelPromptPush {
  system_parts: Record<string, string>;
}

export interface WebUiPush {
  widgets: unknown[];
}

/** A message the plugin sends into the chat of a call in flight (`execute_tool`, `command`). */
export interface SendMessagePush {
  callId: string;
  /** Text, one segment or a list of segments (the vocabulary of docs/plugins.md, What handlers get). */
  message: string | JsonObject | JsonObject[];
}

/**
 * Asks for a picture of a call in flight's message (`pictures[index]` of its params); the bot
 * answers with a `picture` line carrying the same `requestId`.
 */
export interface FetchPicturePush {
  callId: string;
  index: number;
  requestId?: string | number;
}

/**
 * Long-term memory for a call in flight (its chat, its message), as `context.memory` of the
 * TypeScript SDK; the bot answers each with a `memory` line carrying the same `requestId`.
 */
interface MemoryPushBase {
  callId: string;
  requestId?: string | number;
}

export interface MemoryRecallPush extends MemoryPushBase {
  query: string;
  /** A user id on the chat's platform, or "group"; default the message's sender. */
  about?: string | number;
  limit?: number;
}

export interface MemoryRememberPush extends MemoryPushBase {
  content: string;
  about?: string | number;
}

export interface MemoryForgetPush extends MemoryPushBase {
  id: number;
}

export type MemoryPush =
  | ({ method: "memory_recall" } & MemoryRecallPush)
  | ({ method: "memory_remember" } & MemoryRememberPush)
  | ({ method: "memory_forget" } & MemoryForgetPush);

/** The pushes about memory, answered by a `memory` line. */
const MEMORY_PUSHES = ["memory_recall", "memory_remember", "memory_forget"] as const;

export function isMemoryPush(method: string): method is MemoryPush["method"] {
  return (MEMORY_PUSHES as readonly string[]).includes(method);
}

/** The `requestId` a push named, to echo in the answer (null when it named none, or a bad one). */
export function requestIdOf(params: JsonObject): string | number | null {
  const requestId = params.requestId;
  return typeof requestId === "string" || typeof requestId === "number" ? requestId : null;
}

/** Replaces the tools declared at activation (like `refresh_tools` in function-declaration plugins). */
export interface ToolsPush {
  /** Checked one by one, as `activate`'s tools. */
  tools: unknown[];
}

const named = { type: "string", minLength: 1 };
const id = { type: ["string", "number"] };
const toolDeclaration = {
  type: "object",
  required: ["name"],
  properties: {
    name: named,
    description: { type: "string" },
    parameters: { type: ["array", "object", "null"] },
  },
};
const namedDeclaration = {
  type: "object",
  required: ["name"],
  properties: { name: named, description: { type: "string" } },
};

/** One declaration of each list an activate answer may carry; checked one by one, so a bad one is left out alone. */
const declarationSchemas = {
  tool: toolDeclaration,
  hook: {
    type: "object",
    required: ["event"],
    properties: { event: named, matcher: { type: "string" }, name: named },
  },
  enricher: namedDeclaration,
  reply_extension: namedDeclaration,
  command: {
    type: "object",
    required: ["name"],
    properties: {
      name: named,
      description: { type: "string" },
      prefix: { type: ["string", "array"], items: { type: "string" } },
      pattern: { type: "string" },
      usage: { type: "string" },
      admin_only: { type: "boolean" },
    },
  },
};

export type DeclarationKind = keyof typeof declarationSchemas;

const listOf = { type: ["array", "null"] };

const activateAnswerSchema = {
  type: "object",
  properties: {
    tools: listOf,
    hooks: listOf,
    enrichers: listOf,
    channel_provider: { type: ["object", "null"], properties: { name: { type: "string" } } },
    reply_extensions: listOf,
    commands: listOf,
  },
};

const pushSchemas = {
  channel_inbound: {
    type: "object",
    required: ["message"],
    properties: {
      message: { type: "string" },
      chatId: id,
      senderId: id,
      senderName: { type: "string" },
      chatType: { enum: ["group", "private"] },
    },
  },
  channel_tools: {
    type: "object",
    required: ["tools"],
    properties: { tools: { type: "array" } },
  },
  channel_prompt: {
    type: "object",
    required: ["system_parts"],
    properties: { system_parts: { type: "object", additionalProperties: { type: "string" } } },
  },
  web_ui: { type: "object", required: ["widgets"], properties: { widgets: { type: "array" } } },
  send_message: {
    type: "object",
    required: ["callId", "message"],
    properties: {
      callId: named,
      message: {
        anyOf: [{ type: "string" }, { type: "object" }, { type: "array", items: { type: "object" } }],
      },
    },
  },
  tools: { type: "object", required: ["tools"], properties: { tools: { type: "array" } } },
  fetch_picture: {
    type: "object",
    required: ["callId", "index"],
    properties: { callId: named, index: { type: "integer", minimum: 0 }, requestId: id },
  },
  memory_recall: {
    type: "object",
    required: ["callId", "query"],
    properties: {
      callId: named,
      requestId: id,
      query: { type: "string" },
      about: id,
      limit: { type: "integer", minimum: 1 },
    },
  },
  memory_remember: {
    type: "object",
    required: ["callId", "content"],
    properties: { callId: named, requestId: id, content: { type: "string" }, about: id },
  },
  memory_forget: {
    type: "object",
    required: ["callId", "id"],
    properties: { callId: named, requestId: id, id: { type: "integer" } },
  },
};

export type PushMethod = keyof typeof pushSchemas;

export interface ProtocolValidators {
  activate: ValidateFunction<ActivateAnswer>;
  declaration: { [K in DeclarationKind]: ValidateFunction };
  push: { [M in PushMethod]: ValidateFunction };
}

export function compileProtocol(ajv: Ajv): ProtocolValidators {
  return {
    activate: ajv.compile<ActivateAnswer>(activateAnswerSchema),
    declaration: {
      tool: ajv.compile(declarationSchemas.tool),
      hook: ajv.compile(declarationSchemas.hook),
      enricher: ajv.compile(declarationSchemas.enricher),
      reply_extension: ajv.compile(declarationSchemas.reply_extension),
      command: ajv.compile(declarationSchemas.command),
    },
    push: {
      channel_inbound: ajv.compile(pushSchemas.channel_inbound),
      channel_tools: ajv.compile(pushSchemas.channel_tools),
      channel_prompt: ajv.compile(pushSchemas.channel_prompt),
      web_ui: ajv.compile(pushSchemas.web_ui),
      send_message: ajv.compile(pushSchemas.send_message),
      tools: ajv.compile(pushSchemas.tools),
      fetch_picture: ajv.compile(pushSchemas.fetch_picture),
      memory_recall: ajv.compile(pushSchemas.memory_recall),
      memory_remember: ajv.compile(pushSchemas.memory_remember),
      memory_forget: ajv.compile(pushSchemas.memory_forget),
    },
  };
}

export function isPushMethod(method: string): method is PushMethod {
  return Object.hasOwn(pushSchemas, method);
}

/** The ajv errors of the last check as one line; `whole` names the checked value itself. */
export function problemsOf(validate: ValidateFunction, whole = "(answer)"): string {
  return (validate.errors ?? [])
    .map((error) => `${error.instancePath.slice(1).replaceAll("/", ".") || whole} ${error.message}`)
    .join("; ");
}
