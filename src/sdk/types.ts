/**
 * The shapes a plugin sees. They are plain data and plain functions, so a plugin written
 * against them works whichever copy of the SDK it imported. What a handler is called with is
 * in ./handler-context.ts, what it receives and sends in ./segment-types.ts, both re-exported here.
 */
import type { HandlerContext, PluginLogger, PluginSpeech } from "./handler-context.ts";
import type { ReplyMessage } from "./segment-types.ts";

/** A JSON Schema object, written inline (`$ref` / `$dynamicRef` are refused). */
export type JsonSchema = Record<string, unknown>;

/** Where a component is active: every chat, group chats only, or private chats only. */
export type ChatScope = "all" | "group" | "private";

/** Options every component accepts. */
export interface ComponentOptions {
  /** Default "all". */
  chat_scope?: ChatScope;
  /**
   * Session ids the component is limited to: full ids (`onebot:10000:group:20000`) or their
   * tail (`group:20000`, `private:30001`). Absent = every session.
   */
  allowed_session?: string[];
  /** false = declared but off until enabled (`/plugins enable`, console). Default true. */
  enabled?: boolean;
}

/** One parameter in the list form of a tool's parameters. */
export interface ToolParameterInfo {
  name: string;
  type: "string" | "number" | "integer" | "boolean" | "array" | "object";
  description?: string;
  /** Default false. */
  required?: boolean;
  enum?: unknown[];
  default?: unknown;
  /** Element schema of an array parameter. */
  items?: JsonSchema;
}

/**
 * A tool's parameters: a list of parameter descriptions, a property map
 * (`{ city: { type: "string" } }`), or a full object JSON Schema (`{ type: "object", … }`).
 */
export type ParametersDeclaration = ToolParameterInfo[] | Record<string, JsonSchema> | JsonSchema;

export interface ToolOptions extends ComponentOptions {
  /** What the model reads to decide when to call the tool. */
  description: string;
  parameters?: ParametersDeclaration;
  /** Per-call limit; a call running longer becomes an error result. Default 30000. */
  timeout_ms?: number;
}

export interface CommandOptions extends ComponentOptions {
  /** Shown by /help. */
  description?: string;
  /** Words that start the command, e.g. "/weather" or ["ping", "/ping"]. Default "/<name>". */
  prefix?: string | string[];
  /** Instead of a prefix: a regular expression the message text must match. */
  pattern?: RegExp;
  /** Only `bot.admins` may run it. Default false. */
  admin_only?: boolean;
  /** Argument synopsis shown by /help, e.g. "<city> [days]". */
  usage?: string;
}

export type HookEventName =
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "UserPromptSubmit"
  | "AgentStop"
  | "SessionStart"
  | "PreReplyGenerate";

/**
 * A hook's answer. Several hooks of one event combine by strength, deny > ask > defer > allow:
 * - `allow`: go ahead (also what returning nothing means);
 * - `deny`: PreToolUse: the call does not run and the model is told `message`;
 *   UserPromptSubmit: the turn ends silently, with no model call and no reply;
 * - `ask`: PreToolUse: an admin approves (`/approve <id>`) or not, within 60 s;
 *   UserPromptSubmit has no approval step, so there it counts as deny;
 * - `defer`: this hook has no opinion; the other hooks, else the default, decide. The default
 *   lets the call or turn go ahead, as when no hook matched, so when every hook defers it runs.
 * Only PreToolUse and UserPromptSubmit hooks decide anything (they are guards); the other
 * events only observe.
 */
export type HookDecision = "allow" | "deny" | "ask" | "defer";

export interface HookOptions<Event extends HookEventName = HookEventName> extends ComponentOptions {
  event: Event;
  /**
   * Tool events only: which tools, by name. `*` matches any run of characters and `|`
   * separates alternatives: "weather", "search_*|fetch_*". Default: every tool.
   */
  matcher?: string;
  /**
   * Default 5000. A guard (PreToolUse, UserPromptSubmit) that runs longer, throws, answers
   * something that is not a HookResult, or whose plugin is not running, denies: what it guards
   * never happens unchecked. A hook of another event is skipped instead.
   */
  timeout_ms?: number;
}

export interface HookResult {
  decision: HookDecision;
  /** deny: what the model is told (and the timeline shows); ask: shown to the admin asked to approve. */
  message?: string;
}

/** Options of a reply extension. */
export interface ReplyExtensionOptions extends ComponentOptions {
  /** What the planner reads to decide when to select the extension. Default "". */
  description?: string;
  /**
   * Declared like a tool's parameters. They appear in the reply tool under
   * `plugin_options["<pluginId>.<name>"]`; unknown parameters are refused unless a full
   * object schema allows them.
   */
  parameters: ParametersDeclaration;
  /** Order among the selected extensions, ascending; ties go by full name. Default 0. */
  priority?: number;
  /** Per-call limit; a call running longer fails the reply. Default 60000. */
  timeout_ms?: number;
}

export type ReplyExtensionPhase = "prepare" | "before_send";

/** The chat a reply goes to. */
export interface ReplyChat {
  platform: string;
  is_group_chat: boolean;
  /** null in private chats. */
  group_id: string | null;
  /** The author of the message being answered. */
  user_id: string;
  session_id: string;
  /** The chat stream; the same as session_id. */
  stream_id: string;
}

/** What a reply extension's handler receives (the same for every runtime). */
export interface ReplyExtensionPayload<Parameters = Record<string, unknown>> {
  phase: ReplyExtensionPhase;
  /** This reply; the same in both phases, different for every reply. */
  reply_id: string;
  /** The id of the planner's reply tool call. */
  call_id: string;
  session_id: string;
  /** The message being answered. */
  reply_message_id: string;
  chat: ReplyChat;
  /** This extension's parameters only, validated, defaults filled. */
  parameters: Parameters;
  /** "" in prepare; the final reply text in before_send. */
  text: string;
  /** [] in prepare; the whole outgoing group, in send order, in before_send. */
  messages: ReplyMessage[];
}

/** prepare: `{}` or `{ extra_prompt }`; before_send: `{}` (keep) or `{ messages }`. */
export interface ReplyExtensionResult {
  extra_prompt?: string;
  messages?: ReplyMessage[];
}

/** The second argument of a reply extension handler. Extensions never send: the host does. */
export interface ReplyExtensionContext<Config = Record<string, unknown>> {
  config: Config;
  logger: PluginLogger;
  /** Aborted when the call times out or the turn ends. */
  signal: AbortSignal;
  /** The host's text-to-speech for the reply's chat, counted for the reply's turn (SDK 1.5.0). */
  speech: PluginSpeech;
}

export interface EnricherOptions extends ComponentOptions {
  description?: string;
  /** A slower enricher is skipped for the turn. Default 3000. */
  timeout_ms?: number;
}

export type * from "./handler-context.ts";
export type * from "./segment-types.ts";

/** What every hook input carries. */
interface HookInputBase<Event extends HookEventName> {
  event: Event;
  session_id: string;
  /** The turn the event belongs to. */
  reply_id: string;
}

/** The fields of the tool events. */
interface ToolHookFields {
  tool_name: string;
  /** The call's arguments as the model gave them, validated. */
  tool_input: Record<string, unknown>;
}

export interface PreToolUseInput extends HookInputBase<"PreToolUse">, ToolHookFields {}

export interface PostToolUseInput extends HookInputBase<"PostToolUse">, ToolHookFields {
  /** What the tool returned (undefined when it returned nothing). */
  tool_output: unknown;
}

export interface PostToolUseFailureInput extends HookInputBase<"PostToolUseFailure">, ToolHookFields {
  /** Why the call failed. */
  error: string;
}

export interface UserPromptSubmitInput extends HookInputBase<"UserPromptSubmit"> {
  /** The turn's new messages as "name: text" lines. */
  prompt: string;
}

export interface AgentStopInput extends HookInputBase<"AgentStop"> {
  /** How the turn ended. */
  status: "replied" | "silent" | "failed";
  /** Why, in one line. */
  reason: string;
}

export interface SessionStartInput extends HookInputBase<"SessionStart"> {}

export interface PreReplyGenerateInput extends HookInputBase<"PreReplyGenerate"> {
  /** The message being answered. */
  reply_message_id: string;
  /** What the planner wants said, when it said. */
  intent?: string;
  /** The reply extensions' extra requirements, one per line ("" when none). */
  extra_prompt: string;
}

/**
 * What a hook is told: one shape per event, told apart by `event`, so
 * `if (input.event === "PostToolUse") input.tool_output` type-checks.
 */
export type HookInput =
  | PreToolUseInput
  | PostToolUseInput
  | PostToolUseFailureInput
  | UserPromptSubmitInput
  | AgentStopInput
  | SessionStartInput
  | PreReplyGenerateInput;

/** The input of one event's hooks: `HookInputOf<"PreToolUse">`. */
export type HookInputOf<Event extends HookEventName> = Extract<HookInput, { event: Event }>;

export interface HookContext<Config = Record<string, unknown>> extends HandlerContext<Config> {
  /** Aborted when the hook's timeout passes. */
  signal: AbortSignal;
}

export interface EnricherContext<Config = Record<string, unknown>> extends HandlerContext<Config> {
  reply_id: string;
  /** Aborted when the enricher's timeout passes or the turn ends. */
  signal: AbortSignal;
}
