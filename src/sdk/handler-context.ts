/**
 * What a handler is called with (SDK types, like ./types.ts): the message, the chat it can act
 * on, its pictures and long-term memory, and the context each kind of handler gets.
 */
import type { OutgoingMessage, Segment } from "./segment-types.ts";

/** The message a handler was called for (OneBot-style field names, every id a string). */
export interface PluginEvent {
  platform: string;
  /** The adapter (`adapters[].id`) the message came through. */
  adapter_id: string;
  self_id: string;
  session_id: string;
  message_type: "group" | "private";
  message_id: string;
  user_id: string;
  /** Group chats only. */
  group_id?: string;
  sender: { user_id: string; nickname: string };
  message: Segment[];
  /** The message as plain text, without a leading mention of the bot. */
  pure_text: string;
  /** Unix time in milliseconds. */
  time: number;
}

/** A message of the session's stored history. */
export interface HistoryMessage {
  message_id: string;
  user_id: string;
  nickname: string;
  /** Sent by the bot itself. */
  from_self: boolean;
  text: string;
  message: Segment[];
  time: number;
}

export interface MemberInfo {
  user_id: string;
  nickname: string;
  /** Group card (display name in the group), "" when unset. */
  card: string;
  role: string;
  [field: string]: unknown;
}

/** What a handler can do to the chat it was called for. */
export interface BotApi {
  readonly self_id: string;
  /** Sends to the event's session (the function-declaration style's `bot.send(event, message)`). */
  send(event: PluginEvent, message: OutgoingMessage): Promise<{ message_id: string }>;
  /** Calls any raw OneBot action on this account and returns its `data`. */
  callAction(action: string, params?: Record<string, unknown>): Promise<unknown>;
  /** The session's newest stored messages, oldest first (default 20). */
  history(limit?: number): Promise<HistoryMessage[]>;
  /** A group member of the event's group (or of `groupId`); undefined when unknown. */
  member(userId: string, groupId?: string): Promise<MemberInfo | undefined>;
  /** Rescans the plugin folders and reloads every plugin (function-declaration `refresh_tools`). */
  refreshTools(): Promise<void>;
}

export interface PluginLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A picture's bytes, fetched by the bot with its limits. */
export interface PictureBytes {
  /** Checked by magic bytes (a GIF arrives as its first frame, a PNG). */
  mime: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`. */
  sha256: string;
}

/** A picture of the message a handler was called for (its image segments, stickers included). */
export interface PluginPicture {
  /** `sticker`: an image QQ marks as a sticker. */
  kind: "image" | "sticker";
  /** The platform's file id, when the picture has one. */
  fileId?: string;
  /** What the vision model (`llm.models.vision`) saw in it, once described in this turn or before. */
  readonly description?: string;
  /**
   * Fetches the picture with the bot's limits (only what the platform put in the segment,
   * http(s), no private address unless allowed, `media.maxBytes`, `media.timeoutMs`, type by
   * magic bytes). Rejects with an Error saying why.
   */
  fetch(): Promise<PictureBytes>;
}

/**
 * A long-term memory as plugins see it (TypeScript, stdio and Python alike: snake_case, as
 * every payload plugins read). See docs/plugins.md (Memory).
 */
export interface PluginMemory {
  id: number;
  about: "person" | "group";
  /** The person's platform user id (`about: person`). */
  user_id?: string;
  /** The group's id (`about: group`). */
  group_id?: string;
  /** How the person or group was called when it was last learned. */
  subject_name: string;
  /** The fact, one short sentence. */
  content: string;
  /** Unix ms. */
  created_at: number;
  /** Unix ms: content last changed. */
  updated_at: number;
  /** How often it was learned or confirmed again (1 when new). */
  confirmations: number;
}

/**
 * Long-term memory for the chat a handler was called for, under the bot's own rules: nothing
 * while `memory.enabled` is off (recall gives `[]`, remember and forget reject), people's
 * memories anywhere on the platform, a group's memories only in that group.
 */
export interface PluginMemoryAccess {
  /**
   * Memories relevant to `query` (any language), best first, at most `limit` (default 5, at
   * most 20). `about` narrows them to one person (a user id) or the chat's group (`"group"`);
   * without it every memory visible here is searched. With `about`, an empty query gives the
   * newest; without, it rejects.
   */
  recall(query: string, options?: { about?: string; limit?: number }): Promise<PluginMemory[]>;
  /**
   * Remembers one short fact (at most 300 characters) about `about` (a user id or `"group"`;
   * default the sender), learned from `event`'s message; a fact saying the same as one already
   * known about them rewords and confirms it instead. Resolves with the stored memory.
   */
  remember(content: string, options?: { about?: string }): Promise<PluginMemory>;
  /** Deletes one memory this call could recall (by its `id`); false when there is none. */
  forget(id: number): Promise<boolean>;
}

/** Speech the host's tts task made for a plugin (SDK 1.5.0). */
export interface SpokenAudio {
  /** The audio as the chat's implementation takes it: WAV or MP3, SILK with `media.tts.silk`. */
  audio: Buffer;
  format: "wav" | "mp3" | "silk";
  /** The `"provider/model"` that spoke, and in which voice. */
  model: string;
  voice: string;
  /** How long it plays; undefined when the audio does not tell. */
  seconds?: number;
}

/**
 * The host's text-to-speech task (`llm.models.tts`) for the chat a handler was called for,
 * under the same rules as the planner's `send_voice`: the `media.tts` caps (one voice per turn
 * by default, shared with send_voice), `media.tts.maxChars`, the daily token budgets, and
 * usage counted for the turn's member (SDK 1.5.0).
 */
export interface PluginSpeech {
  /** Whether a tts model is set for this chat; when false, `speak` rejects. */
  readonly available: boolean;
  /**
   * Speaks `text` in the chat's voice (`bot.voice`, the group's `voice`). Rejects with an
   * Error saying why when no tts model is set, a cap or budget refuses, the text is too long
   * or every tts model failed.
   */
  speak(text: string): Promise<SpokenAudio>;
}

/** What every handler gets. */
export interface HandlerContext<Config = Record<string, unknown>> {
  bot: BotApi;
  event: PluginEvent;
  /** This plugin's config, validated against plugin.json's `config` schema, defaults filled. */
  config: Config;
  logger: PluginLogger;
  /** The pictures of `event`'s message, in order (none: `[]`). */
  pictures: PluginPicture[];
  /** Long-term memory for `event`'s chat (SDK 1.4.0). */
  memory: PluginMemoryAccess;
  /** The host's text-to-speech for `event`'s chat (SDK 1.5.0). */
  speech: PluginSpeech;
}

export interface ToolContext<Config = Record<string, unknown>> extends HandlerContext<Config> {
  /** The turn this call belongs to. */
  reply_id: string;
  call_id: string;
  /** Aborted when the call times out or the turn ends. */
  signal: AbortSignal;
}

export interface CommandContext<Config = Record<string, unknown>> extends HandlerContext<Config> {
  /** The prefix that matched, e.g. "/weather". */
  command: string;
  /** Words after the command; "double quotes" keep spaces. */
  args: string[];
  /** Text after the command, as typed. */
  rest: string;
  /** Pattern commands: the match. */
  match?: RegExpMatchArray;
  /** The sender is in `bot.admins`; a stdio channel's user only when named `stdio.<pluginId>:<userId>`. */
  is_admin: boolean;
}
