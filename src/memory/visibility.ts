/**
 * The rules of long-term memory: one set for the turn's recall, the planner's `remember` and
 * `recall`, the background learner, `/memory` and `/forget`, and plugins' `context.memory`.
 *
 * - Seen: a memory about a person is seen wherever that person is known (same platform; the same
 *   stdio channel), except that one learned in a private chat is seen only in that chat; a
 *   group's memory only in that group.
 * - Changed: only where its audience does not grow — in a group, what is seen there; in a
 *   private chat, only what was learned in it.
 * - About whom: what is remembered, recalled or changed is about someone present in the chat
 *   (the sender, people mentioned or quoted, the recent speakers of its history window) or this
 *   group; never about someone who only appears as a user id in a request.
 */
import type { ChatMessage } from "../message/inbound.ts";
import { STDIO_PLATFORM, userNamespace } from "../message/message-source.ts";
import { findReplyId } from "../message/render.ts";
import { parseSessionId } from "../message/session-id.ts";
import type { MessageStore } from "../store/types.ts";
import { unique } from "./entries.ts";
import { groupSubject, type MemoryEntry, type MemorySubject, personSubject } from "./types.ts";

/** Where memory is used: the chat a turn, a command or a plugin call belongs to. */
export interface MemoryPlace {
  /** The namespace of its users' ids (message/message-source.ts `userNamespace`). */
  platform: string;
  /** The group, in a group chat. */
  groupId?: string;
  sessionId: string;
}

/** A chat at one moment: where, and who is present (whom memory may be about there). */
export interface MemoryScene extends MemoryPlace {
  present: ReadonlySet<MemorySubject>;
}

export function placeOf(message: ChatMessage): MemoryPlace {
  return {
    platform: userNamespace(message),
    ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
    sessionId: message.sessionId,
  };
}

/** The group's subject, in a group chat. */
export function groupSubjectOf(place: MemoryPlace): MemorySubject | undefined {
  return place.groupId === undefined ? undefined : groupSubject(place.platform, place.groupId);
}

export function senderSubject(message: ChatMessage): MemorySubject {
  return personSubject(userNamespace(message), message.userId);
}

/** People a message @-mentions (the bot and @all excluded). */
export function mentionedSubjects(message: ChatMessage): MemorySubject[] {
  return message.segments.flatMap((segment) =>
    segment.type === "at" &&
    typeof segment.data.qq === "string" &&
    /^\d+$/.test(segment.data.qq) &&
    segment.data.qq !== message.selfId
      ? [personSubject(userNamespace(message), segment.data.qq)]
      : [],
  );
}

/**
 * What `about` names here: "group" is this chat's group (undefined in a private chat), anything
 * else a user id on this platform. Whether memory may be about them is `concerns`.
 */
export function subjectNamed(place: MemoryPlace, about: string): MemorySubject | undefined {
  const trimmed = about.trim();
  if (trimmed.toLowerCase() === "group") return groupSubjectOf(place);
  return /^[^\s:]{1,64}$/.test(trimmed) ? personSubject(place.platform, trimmed) : undefined;
}

/** Whether memory may be about `subject` here: someone present, or this group. */
export function concerns(scene: MemoryScene, subject: MemorySubject): boolean {
  return scene.present.has(subject) || subject === groupSubjectOf(scene);
}

/** The subjects a search here covers: the people present and this group. */
export function subjectsOf(scene: MemoryScene): MemorySubject[] {
  const group = groupSubjectOf(scene);
  return group === undefined ? [...scene.present] : [...scene.present, group];
}

/** Whether a memory may be seen here. */
export function visibleAt(entry: Pick<MemoryEntry, "subject" | "sessionId">, place: MemoryPlace): boolean {
  if (!entry.subject.startsWith("person:")) return entry.subject === groupSubjectOf(place);
  if (!entry.subject.startsWith(personSubject(place.platform, ""))) return false;
  return entry.sessionId === place.sessionId || !learnedInPrivate(entry.sessionId);
}

/** Whether a memory may be changed here (`replaces`, the learner's updates, a fact confirmed again). */
export function changeableAt(entry: Pick<MemoryEntry, "subject" | "sessionId">, place: MemoryPlace): boolean {
  return visibleAt(entry, place) && (place.groupId !== undefined || entry.sessionId === place.sessionId);
}

/**
 * Whether what is learned in a session stays there: a private chat's, and a stdio channel's
 * (its session id does not say whether the chat is a group). Group chats' and the console's
 * own (session `console`) are seen wherever their subject is.
 */
function learnedInPrivate(sessionId: string): boolean {
  // First: a stdio chat id may itself look like "group:…".
  if (sessionId.startsWith(`${STDIO_PLATFORM}:`)) return true;
  return parseSessionId(sessionId)?.chatType === "private";
}

/** The user namespace of a subject (`person:stdio.webchat:alice` → `stdio.webchat`). */
export function namespaceOf(subject: MemorySubject): string {
  const start = subject.indexOf(":") + 1;
  return subject.slice(start, subject.indexOf(":", start));
}

/** The user id of a person subject, or undefined for a group. */
export function userIdOf(subject: MemorySubject): string | undefined {
  if (!subject.startsWith("person:")) return undefined;
  return subject.slice(subject.indexOf(":", "person:".length) + 1);
}

/**
 * The scene of `messages` (a turn's, or a plugin call's message): their chat, and as present
 * their senders, the people they mention and quote, and the senders of the chat's last
 * `window` messages before them.
 */
export async function sceneAround(
  messages: ChatMessage[],
  store: Pick<MessageStore, "recent" | "findByMessageId">,
  window: number,
): Promise<MemoryScene> {
  const first = messages.find((message) => !message.fromSelf) ?? messages[0];
  if (first === undefined) throw new Error("a memory scene needs at least one message");
  const { sessionId } = first;
  const recent = window > 0 ? await store.recent({ sessionId, limit: window + messages.length }) : [];
  const quotedIds = unique(messages.flatMap((message) => findReplyId(message.segments) ?? []));
  const quoted = await Promise.all(quotedIds.map((id) => store.findByMessageId(sessionId, id)));
  const spoken = [...recent, ...messages, ...quoted].filter(
    (message): message is ChatMessage => message !== undefined && !message.fromSelf,
  );
  return {
    ...placeOf(first),
    present: new Set([...spoken.map(senderSubject), ...messages.flatMap(mentionedSubjects)]),
  };
}
