import type { ChatMessage } from "../message/inbound.ts";
import { MAX_MEMORY_CHARS, type MemoryService, sourcesOf } from "./memory-service.ts";
import type { MemoryEntry, MemorySubject, PluginMemory, PluginMemoryAccess } from "./types.ts";
import {
  concerns,
  type MemoryPlace,
  type MemoryScene,
  senderSubject,
  subjectNamed,
  userIdOf,
} from "./visibility.ts";

/** Memories one recall returns by default, and at most. */
const PLUGIN_RECALL_DEFAULT = 5;
export const PLUGIN_RECALL_MAX = 20;

export interface PluginMemoryScope {
  memory: MemoryService;
  /** The message the plugin call is for: its chat bounds what is seen, it is the source of what is learned. */
  message: ChatMessage;
  /** Its chat and who is present there (visibility.ts `sceneAround`), read when memory is first used. */
  scene: () => Promise<MemoryScene>;
  pluginId: string;
  /** The turn the call belongs to, for the timeline. */
  replyId?: string;
}

/**
 * `context.memory` of one plugin call (TypeScript, stdio and Python plugins alike), under the
 * planner's rules (visibility.ts): nothing while `memory.enabled` is off, only about the people
 * present in the call's chat and its group, never a fact learned in another, private chat, and a
 * plugin deletes only what it could recall here.
 */
export function createPluginMemoryAccess(scope: PluginMemoryScope): PluginMemoryAccess {
  const { memory, message, pluginId } = scope;
  let scene: Promise<MemoryScene> | undefined;
  const sceneOnce = () => {
    scene ??= scope.scene();
    return scene;
  };
  const refuseWhenOff = () => {
    if (!memory.enabled()) throw new Error("long-term memory is off (memory.enabled: false)");
  };
  /** The subject `about` names, when memory may be about them here. */
  const presentSubject = async (about: unknown): Promise<MemorySubject> => {
    const here = await sceneOnce();
    const subject = subjectOf(here, about);
    if (concerns(here, subject)) return subject;
    const reason = `memory: user ${userIdOf(subject)} is not in this chat (memories are only about the people here: the sender, someone mentioned, quoted or speaking lately)`;
    throw new Error(memory.refused(reason, { sessionId: message.sessionId, by: `plugin:${pluginId}` }));
  };
  return {
    async recall(query, options = {}) {
      if (!memory.enabled()) return [];
      const text = typeof query === "string" ? query.trim() : "";
      const limit = recallLimit(options.limit);
      let found: MemoryEntry[];
      if (isGiven(options.about)) {
        found = await memory.searchAbout(await presentSubject(options.about), await sceneOnce(), text, limit);
      } else if (text !== "") {
        found = await memory.search(await sceneOnce(), text, limit);
      } else {
        throw new Error("memory.recall needs a query, or about to list the newest memories about someone");
      }
      return found.map(toPluginMemory);
    },

    async remember(content, options = {}) {
      refuseWhenOff();
      const fact = factOf(content);
      const subject = isGiven(options.about) ? await presentSubject(options.about) : senderSubject(message);
      const place = await sceneOnce();
      const { entry } = await memory.remember({
        subject,
        subjectName: await subjectName(memory, subject, message, place),
        content: fact,
        origin: "plugin",
        pluginId,
        sessionId: message.sessionId,
        sources: sourcesOf([message]),
        place,
        ...(scope.replyId === undefined ? {} : { replyId: scope.replyId }),
      });
      return toPluginMemory(entry);
    },

    async forget(id) {
      refuseWhenOff();
      if (!Number.isSafeInteger(id)) throw new Error("memory.forget needs a memory's id (an integer)");
      // A memory it could not recall here is answered like a missing one: plugins learn nothing of it.
      const here = await sceneOnce();
      const entry = await memory.visibleEntry(id, here);
      return entry && concerns(here, entry.subject)
        ? memory.forgetEntry(entry, message.sessionId, `plugin:${pluginId}`)
        : false;
    },
  };
}

/** A memory as plugins read it (snake_case, as every payload plugins read). */
function toPluginMemory(entry: MemoryEntry): PluginMemory {
  const userId = userIdOf(entry.subject);
  return {
    id: entry.id,
    ...(userId === undefined
      ? { about: "group", group_id: entry.subject.slice(entry.subject.indexOf(":", "group:".length) + 1) }
      : { about: "person", user_id: userId }),
    subject_name: entry.subjectName,
    content: entry.content,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
    confirmations: entry.confirmations,
  };
}

function isGiven(about: unknown): boolean {
  return about !== undefined && about !== null && about !== "";
}

/** `about`: a user id on the message's platform, or "group" (this chat's group). */
function subjectOf(place: MemoryPlace, about: unknown): MemorySubject {
  const text = typeof about === "string" || typeof about === "number" ? String(about) : "";
  const subject = text === "" ? undefined : subjectNamed(place, text);
  if (subject) return subject;
  throw new Error(
    text.trim().toLowerCase() === "group"
      ? 'memory: about "group" needs a group chat; this is a private chat'
      : `memory: "about" must be a user id or "group", not ${JSON.stringify(about)}`,
  );
}

/** One short fact: refused rather than cut, so a plugin never stores less than it thinks. */
function factOf(content: unknown): string {
  const fact = typeof content === "string" ? content.trim() : "";
  if (fact === "") throw new Error("memory.remember needs the fact to remember (non-empty text)");
  if (fact.length > MAX_MEMORY_CHARS) {
    throw new Error(
      `memory.remember: a memory is at most ${MAX_MEMORY_CHARS} characters (this one has ${fact.length})`,
    );
  }
  return fact;
}

function recallLimit(limit: unknown): number {
  if (typeof limit !== "number" || !Number.isFinite(limit)) return PLUGIN_RECALL_DEFAULT;
  return Math.min(PLUGIN_RECALL_MAX, Math.max(1, Math.floor(limit)));
}

/** The sender's name for the sender, the name a memory about the subject already has, else its id. */
async function subjectName(
  memory: MemoryService,
  subject: MemorySubject,
  message: ChatMessage,
  place: MemoryPlace,
): Promise<string> {
  if (subject === senderSubject(message)) return message.senderName || message.userId;
  const [known] = await memory.searchAbout(subject, place, "", 1);
  return known?.subjectName ?? userIdOf(subject) ?? message.groupId ?? subject;
}
