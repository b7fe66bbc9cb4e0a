/**
 * Where a message comes from, as `bot.admins` entries and `access` rules name it:
 * `<platform>[.<instance>]`, where the platform is `onebot` or `stdio` and the instance narrows
 * it to one OneBot adapter (`onebot.qq`, its `adapters[].id`) or one stdio channel plugin
 * (`stdio.webchat`, its plugin id). Neither holds a colon, so a source ends at the first colon.
 */
import { PLUGIN_ID } from "../schema/formats.ts";
import type { ChatMessage } from "./inbound.ts";

/** The platform of stdio channel plugins' chats. */
export const STDIO_PLATFORM = "stdio";

export interface MessageSource {
  platform: "onebot" | "stdio";
  /** The OneBot adapter id or the stdio channel plugin id; the whole platform when absent. */
  instance?: string;
}

const SOURCE = /^(onebot|stdio)(?:\.(.*))?$/s;
const INSTANCE: Record<MessageSource["platform"], RegExp> = {
  onebot: /^[A-Za-z0-9][A-Za-z0-9_-]*$/,
  stdio: PLUGIN_ID,
};

/** The source, or undefined when the text is not `<platform>[.<instance>]`. */
export function parseMessageSource(text: string): MessageSource | undefined {
  const match = SOURCE.exec(text);
  if (!match) return undefined;
  const platform = match[1] as MessageSource["platform"];
  const instance = match[2];
  if (instance === undefined) return { platform };
  return INSTANCE[platform].test(instance) ? { platform, instance } : undefined;
}

/**
 * The namespace a sender's user id names one person in, wherever people are told apart (memory
 * subjects, per-user limits): the platform (a QQ number is one person on every OneBot adapter),
 * qualified by the plugin for a stdio channel (`stdio.webchat`), since each channel names its
 * users itself and "alice" of one channel is not "alice" of another — as `bot.admins` entries
 * name them.
 */
export function userNamespace(message: Pick<ChatMessage, "platform" | "selfId">): string {
  return message.platform === STDIO_PLATFORM ? `${STDIO_PLATFORM}.${message.selfId}` : message.platform;
}

/** How every session id of a user namespace's chats starts (`onebot:`, `stdio:webchat:`). */
export function namespaceSessionPrefix(namespace: string): string {
  const stdio = `${STDIO_PLATFORM}.`;
  return namespace.startsWith(stdio)
    ? `${STDIO_PLATFORM}:${namespace.slice(stdio.length)}:`
    : `${namespace}:`;
}

/**
 * Whether the message comes from the source: the same platform and, when the source names an
 * instance, the same OneBot adapter or the same stdio channel plugin (a stdio message's
 * `selfId`; its `adapterId` is the same for every channel).
 */
export function comesFrom(
  source: MessageSource,
  message: Pick<ChatMessage, "platform" | "adapterId" | "selfId">,
): boolean {
  if (source.platform !== message.platform) return false;
  if (source.instance === undefined) return true;
  return source.instance === (message.platform === STDIO_PLATFORM ? message.selfId : message.adapterId);
}
