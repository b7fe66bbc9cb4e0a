import type { ChatMessage } from "../message/inbound.ts";
import {
  groupSubject,
  type MemoryEntry,
  type MemorySearch,
  type MemorySubject,
  personSubject,
} from "./types.ts";

/**
 * Where memory is used: the chat a turn, a command or a plugin call belongs to. People are
 * remembered everywhere (by platform user id); a group's own memories only inside that group.
 */
export interface MemoryPlace {
  platform: string;
  /** The group, in a group chat. */
  groupId?: string;
  sessionId: string;
}

export function placeOf(message: ChatMessage): MemoryPlace {
  return {
    platform: message.platform,
    ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
    sessionId: message.sessionId,
  };
}

/** The group's subject, in a group chat. */
export function groupSubjectOf(place: MemoryPlace): MemorySubject | undefined {
  return place.groupId === undefined ? undefined : groupSubject(place.platform, place.groupId);
}

export function senderSubject(message: ChatMessage): MemorySubject {
  return personSubject(message.platform, message.userId);
}

/**
 * What `about` names here: "group" is this chat's group (undefined in a private chat), anything
 * else a user id on this platform.
 */
export function subjectNamed(place: MemoryPlace, about: string): MemorySubject | undefined {
  const trimmed = about.trim();
  if (trimmed.toLowerCase() === "group") return groupSubjectOf(place);
  return /^[^\s:]{1,64}$/.test(trimmed) ? personSubject(place.platform, trimmed) : undefined;
}

/** Whether a memory may be read (and so changed) here. */
export function visibleAt(entry: Pick<MemoryEntry, "subject">, place: MemoryPlace): boolean {
  if (entry.subject.startsWith("person:")) return true;
  return entry.subject === groupSubjectOf(place);
}

/** A free-text search over what is visible here: every person, and this group only. */
export function visibleSearch(place: MemoryPlace, query: string, limit: number): MemorySearch[] {
  const group = groupSubjectOf(place);
  return [
    { query, excludeSubjectPrefix: ["group:"], limit },
    ...(group === undefined ? [] : [{ query, subjects: [group], limit }]),
  ];
}

/** The user id of a person subject, or undefined for a group. */
export function userIdOf(subject: MemorySubject): string | undefined {
  if (!subject.startsWith("person:")) return undefined;
  return subject.slice(subject.indexOf(":", "person:".length) + 1);
}
