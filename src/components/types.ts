/**
 * Components as the host sees them, whatever runtime provides them (in-process TypeScript
 * now, stdio plugins later): each has a full name `pluginId.name`, a scope, and an
 * `invoke` the runtime implements.
 */

import type { ChatMessage } from "../message/inbound.ts";
import type { PictureTexts } from "../message/picture-text.ts";
import type { ChatType } from "../message/session-id.ts";
import type {
  BotApi,
  ChatScope,
  HookEventName,
  HookInput,
  HookResult,
  JsonSchema,
  OutgoingMessage,
  PluginEvent,
  PluginMemoryAccess,
  PluginPicture,
  PluginSpeech,
  ReplyExtensionPayload,
} from "../sdk/types.ts";

export type Disposer = () => void;

/**
 * How a plugin's code runs (docs/security.md): `in-process` (a node plugin, inside the bot),
 * `trusted` (its own process as the bot's user), `isolated` (a bubblewrap sandbox with its own
 * view of the files, no bot secrets, memory limit, another user when the bot runs as root) or
 * `unisolated` (untrusted, but bwrap cannot run: a clean environment, the memory limit and
 * another user when the bot runs as root; it can read what that user can).
 */
export type LaunchMode = "in-process" | "trusted" | "isolated" | "unisolated";

export interface ComponentScope {
  chatScope: ChatScope;
  /** Session ids or their `group:<id>` / `private:<id>` tails; undefined = every session. */
  allowedSessions?: string[];
  /** Only sessions whose id starts with this: the tools a stdio channel declares for its own chats. */
  sessionPrefix?: string;
}

/** The session a request comes from. */
export interface SessionRef {
  sessionId: string;
  chatType: ChatType;
}

/** What the host hands a component call: the chat it happens in. */
export interface CallContext {
  bot: BotApi;
  event: PluginEvent;
  /** The message as the host stores it (host-side components use it; plugins see `event`). */
  message: ChatMessage;
  /** The message's pictures; fetching one is bounded by `signal` too. */
  pictures: PluginPicture[];
  /** Long-term memory for the message's chat, as the plugin `pluginId` may use it. */
  memoryFor(pluginId: string): PluginMemoryAccess;
  /** The host's text-to-speech for the message's chat, counted for its turn. */
  speech: PluginSpeech;
  signal: AbortSignal;
  replyId?: string;
  callId?: string;
}

export interface CallOptions {
  signal: AbortSignal;
  /** The turn's picture descriptions, read whenever a plugin reads a picture's description. */
  pictures?: PictureTexts;
  replyId?: string;
  callId?: string;
  /** Told the id of every message the handler sends. */
  onSent?: (messageId: string) => void;
}

/** Builds the call context for a message (plugins/call-context.ts, which reaches the outbox and the store). */
export interface CallContexts {
  forMessage(message: ChatMessage, options: CallOptions): CallContext;
}

interface ComponentBase {
  pluginId: string;
  name: string;
  /** `pluginId.name` */
  fullName: string;
  description: string;
  scope: ComponentScope;
}

export interface ToolComponent extends ComponentBase {
  kind: "tool";
  /** Object JSON Schema of the arguments, as declared to the model. */
  parameters: JsonSchema;
  /** Checks (and fills defaults into) arguments; returns the problem, or undefined when valid. */
  validate(args: Record<string, unknown>): string | undefined;
  /**
   * Runs a call whose arguments passed `validate`, within `timeoutMs`. Both are absent on the
   * host's own tools (reply, wait, …), which the planner turn runs itself, with the turn's
   * state and under the turn's time limit.
   */
  invoke?(args: Record<string, unknown>, call: CallContext): Promise<unknown>;
  timeoutMs?: number;
}

/** A tool a plugin or an MCP server provides: the host calls its `invoke`. */
export type PluginToolComponent = ToolComponent & Required<Pick<ToolComponent, "invoke" | "timeoutMs">>;

export interface CommandMatch {
  /** The prefix that matched (or the pattern's whole match). */
  command: string;
  args: string[];
  rest: string;
  match?: RegExpMatchArray;
}

export interface CommandComponent extends ComponentBase {
  kind: "command";
  adminOnly: boolean;
  /** How /help shows it, e.g. "/weather <city>"; "" leaves it out (a command its settings switched off). */
  synopsis: string;
  match(text: string): CommandMatch | undefined;
  invoke(match: CommandMatch, call: CallContext & { isAdmin: boolean }): Promise<OutgoingMessage | undefined>;
}

export interface HookComponent extends ComponentBase {
  kind: "hook";
  event: HookEventName;
  timeoutMs: number;
  /** Tool events: whether the hook wants this tool. */
  matches(toolName: string | undefined): boolean;
  invoke(input: HookInput, call: CallContext): Promise<HookResult | undefined>;
}

export interface EnricherComponent extends ComponentBase {
  kind: "enricher";
  timeoutMs: number;
  invoke(call: CallContext): Promise<string | undefined>;
}

/**
 * A reply extension (prepare and before_send phases). `invoke` takes the snake_case payload and
 * resolves with whatever the handler returned; the reply stage checks it.
 */
export interface ReplyExtensionComponent extends ComponentBase {
  kind: "reply_extension";
  /** Object JSON Schema of the parameters: the value of `plugin_options["pluginId.name"]`. */
  parameters: JsonSchema;
  priority: number;
  timeoutMs: number;
  /** Checks (and fills defaults into) parameters; returns the problem, or undefined when valid. */
  validate(parameters: Record<string, unknown>): string | undefined;
  invoke(payload: ReplyExtensionPayload, call: ReplyExtensionCall): Promise<unknown>;
}

/** What the host hands a reply extension call besides its payload. */
export interface ReplyExtensionCall {
  signal: AbortSignal;
  /** The host's text-to-speech for the reply's chat, counted for the reply's turn. */
  speech: PluginSpeech;
}

/** Who a plugin's speech is for: the message its call is about, in the turn `replyId` if any. */
export interface SpeechCall {
  message: ChatMessage;
  replyId?: string;
  signal: AbortSignal;
}

/** The host's text-to-speech as one plugin call may use it (agent/voice-speaking.ts). */
export type PluginSpeechSource = (call: SpeechCall) => PluginSpeech;

export type Component =
  | ToolComponent
  | CommandComponent
  | HookComponent
  | EnricherComponent
  | ReplyExtensionComponent;
export type ComponentKind = Component["kind"];

/** Whether a component applies to a session (chat_scope, allowed_session). */
export function inScope(scope: ComponentScope, session: SessionRef): boolean {
  if (scope.chatScope !== "all" && scope.chatScope !== session.chatType) return false;
  if (scope.sessionPrefix !== undefined && !session.sessionId.startsWith(scope.sessionPrefix)) return false;
  if (!scope.allowedSessions) return true;
  return scope.allowedSessions.some(
    (allowed) => allowed === session.sessionId || session.sessionId.endsWith(`:${allowed}`),
  );
}
