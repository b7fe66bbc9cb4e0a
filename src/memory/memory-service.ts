import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { namespaceSessionPrefix } from "../message/message-source.ts";
import { uniqueEntries } from "./entries.ts";
import { memoryLine } from "./memory-lines.ts";
import { memoryTerms } from "./terms.ts";
import { EMBEDDING_TASK, type RecallDeps, type RecallTurn, recallSection } from "./turn-recall.ts";
import type { MemoryEntry, MemoryOrigin, MemorySource, MemorySubject, NewMemory } from "./types.ts";
import {
  changeableAt,
  type MemoryPlace,
  type MemoryScene,
  namespaceOf,
  subjectsOf,
  userIdOf,
  visibleAt,
} from "./visibility.ts";

export interface MemoryServiceDeps extends RecallDeps {
  logger: Logger;
}

/** How many memories one forgetting of a group deletes per store round trip. */
const FORGET_PAGE = 500;
/** Results of the recall tool. */
const TOOL_RECALL_LIMIT = 10;
/**
 * A search finds this many times what it returns before the memories not to be seen here
 * (learned in another private chat) are left out; the store cannot tell them apart.
 */
const SEARCH_MARGIN = 4;
/** Memories `aboutHere` reads per store round trip. */
const LIST_PAGE = 100;
/** Longest memory kept (one short statement; a model pasting a paragraph is cut). */
export const MAX_MEMORY_CHARS = 300;
/**
 * Share of terms two memories about the same subject must have in common to be one fact said
 * twice (Jaccard of their term sets): the newer wording replaces the older and confirms it.
 */
const SAME_FACT_SIMILARITY = 0.6;

/** What a write to memory did, for the timeline and for the caller. */
export interface RememberResult {
  entry: MemoryEntry;
  /** An existing memory was updated (the same fact, or the one `replaces` named). */
  previous?: string;
}

/**
 * Long-term memory as the bot uses it: what a turn recalls, what the planner's tools and
 * plugins remember, and forgetting. The rules of where a memory may be seen are in
 * visibility.ts; the background learner (memory-learner.ts) writes through `remember` too.
 */
export class MemoryService {
  constructor(private readonly deps: MemoryServiceDeps) {}

  enabled(): boolean {
    return this.deps.settings().enabled;
  }

  /** The memory section of a turn's prompts (turn-recall.ts); never rejects. */
  async recallForTurn(turn: RecallTurn): Promise<string> {
    try {
      return await recallSection(this.deps, turn);
    } catch (error) {
      // A turn without its memories still answers.
      this.deps.logger.warn({ err: error, replyId: turn.replyId }, "could not recall memories for a turn");
      return "";
    }
  }

  /**
   * Memories seen here about the people present and this group that match `query`, best first
   * (the recall tool, plugins).
   */
  async search(scene: MemoryScene, query: string, limit: number): Promise<MemoryEntry[]> {
    const { store } = this.deps;
    const subjects = subjectsOf(scene);
    if (subjects.length === 0) return [];
    // A present person's user id in the query names them: what is known about them comes first.
    const named = subjects.filter((subject) => {
      const userId = userIdOf(subject);
      return userId !== undefined && query.includes(userId);
    });
    const [theirs, matching] = await Promise.all([
      named.length > 0 ? store.search({ subjects: named, limit: limit * SEARCH_MARGIN }) : [],
      store.search({ query, subjects, limit: limit * SEARCH_MARGIN }),
    ]);
    return uniqueEntries([...theirs, ...matching])
      .filter((entry) => visibleAt(entry, scene))
      .slice(0, limit);
  }

  /**
   * Memories seen here about one subject that match `query` (empty: the newest), best first
   * (plugins' `about`; whether the subject may be asked about here is the caller's rule).
   */
  async searchAbout(
    subject: MemorySubject,
    place: MemoryPlace,
    query: string,
    limit: number,
  ): Promise<MemoryEntry[]> {
    const text = query.trim();
    const hits = await this.deps.store.search({
      ...(text === "" ? {} : { query: text }),
      subjects: [subject],
      limit: limit * SEARCH_MARGIN,
    });
    return hits
      .map((hit) => hit.entry)
      .filter((entry) => visibleAt(entry, place))
      .slice(0, limit);
  }

  /** The recall tool's answer: the matching memories as the prompt shows them. */
  async recallText(scene: MemoryScene, query: string): Promise<string> {
    const found = await this.search(scene, query, TOOL_RECALL_LIMIT);
    const prompts = this.deps.prompts();
    if (found.length === 0) return prompts.render("result_recalled_none");
    const clock = this.deps.clock();
    return prompts.render("result_recalled", {
      lines: found.map((entry) => memoryLine(entry, prompts, clock)).join("\n"),
    });
  }

  /**
   * Remembers a fact: replaces the memory `replaces` names (when it may be changed here), else
   * confirms and rewords the same fact already known about the subject (one that may be changed
   * here), else adds it.
   */
  async remember(
    memory: Omit<NewMemory, "at"> & {
      place: MemoryPlace;
      replaces?: number;
      replyId?: string;
      /** The caller reports the change itself (the learner, one event per pass). */
      silent?: boolean;
    },
  ): Promise<RememberResult> {
    const content = memory.content.trim().slice(0, MAX_MEMORY_CHARS);
    const at = Date.now();
    const target =
      memory.replaces === undefined
        ? await this.sameFact(memory.subject, content, memory.place)
        : await this.changeableEntry(memory.replaces, memory.place);
    let result: RememberResult;
    if (target) {
      const updated = await this.deps.store.update(target.id, {
        content,
        subjectName: memory.subjectName,
        sources: memory.sources,
        confirmedAt: at,
      });
      result = updated
        ? { entry: updated, previous: target.content }
        : { entry: await this.add(memory, content, at) };
    } else {
      result = { entry: await this.add(memory, content, at) };
    }
    if (result.previous !== result.entry.content) this.vectorize(result.entry);
    if (!memory.silent) this.emitLearned(memory.origin, memory.sessionId, memory.replyId, result);
    return result;
  }

  /**
   * Stores the embedding of a memory's content, in the background (a write never waits for
   * it); nothing without an embedding model. A failure leaves the memory without a vector.
   */
  vectorize(entry: MemoryEntry): void {
    const embedder = this.deps.embedder?.();
    if (!embedder?.configured(EMBEDDING_TASK)) return;
    void embedder
      .embed({ task: EMBEDDING_TASK, texts: [entry.content], sessionId: entry.sessionId })
      .then(
        (embedding) => embedding && this.deps.store.setVector(entry.id, embedding.ref, embedding.vectors[0]!),
      )
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, memoryId: entry.id }, "could not store a memory's embedding"),
      );
  }

  /** Deletes one memory; by whom, for the timeline (`sessionId`: where it was asked, if in a chat). */
  async forgetEntry(entry: MemoryEntry, sessionId: string | undefined, by: string): Promise<boolean> {
    const deleted = (await this.deps.store.delete([entry.id])) > 0;
    if (deleted) this.emitForgotten(sessionId, { subject: entry.subject, ids: [entry.id], by });
    return deleted;
  }

  /**
   * Forgets everything about a subject; resolves with the ids deleted. A person as their own
   * `/forget` does: what is about them, what was learned only from their messages, and nothing
   * they said before now is learned again. A group: every memory about it.
   */
  async forgetSubject(subject: MemorySubject, sessionId: string | undefined, by: string): Promise<number[]> {
    const { store } = this.deps;
    const userId = userIdOf(subject);
    let ids: number[] = [];
    if (userId !== undefined) {
      ids = await store.forgetPerson(subject, userId, namespaceSessionPrefix(namespaceOf(subject)));
      await store.markForgotten(subject, Date.now());
    } else {
      for (;;) {
        const page = (await store.list({ subject, limit: FORGET_PAGE })).map((entry) => entry.id);
        // Nothing deleted means another writer holds them: stop rather than list them forever.
        if (page.length === 0 || (await store.delete(page)) === 0) break;
        ids.push(...page);
      }
    }
    this.emitForgotten(sessionId, { subject, ids, by });
    this.deps.logger.info(
      { subject, forgotten: ids.length, by },
      "forgot what was remembered about a subject",
    );
    return ids;
  }

  /** New content for a memory, written by hand (the console); undefined when it is gone. */
  async edit(id: number, content: string, by: MemoryOrigin): Promise<MemoryEntry | undefined> {
    const previous = await this.deps.store.get(id);
    const entry = previous && (await this.deps.store.update(id, { content: content.trim() }));
    if (!previous || !entry) return undefined;
    this.vectorize(entry);
    this.emitLearned(by, undefined, undefined, { entry, previous: previous.content });
    return entry;
  }

  /** A message was deleted on the platform (recalled): what was learned only from it goes too. */
  async forgetMessage(sessionId: string, messageId: string): Promise<void> {
    try {
      const ids = await this.deps.store.forgetMessage(sessionId, messageId);
      if (ids.length > 0) this.emitForgotten(sessionId, { ids, by: "recall", messageId });
    } catch (error) {
      this.deps.logger.warn(
        { err: error, sessionId, messageId },
        "could not forget what a recalled message taught",
      );
    }
  }

  /** A memory by id when it may be seen here. */
  async visibleEntry(id: number, place: MemoryPlace): Promise<MemoryEntry | undefined> {
    const entry = await this.deps.store.get(id);
    return entry && visibleAt(entry, place) ? entry : undefined;
  }

  /** A memory by id when it may be changed here. */
  async changeableEntry(id: number, place: MemoryPlace): Promise<MemoryEntry | undefined> {
    const entry = await this.deps.store.get(id);
    return entry && changeableAt(entry, place) ? entry : undefined;
  }

  /** The memories about one subject seen here, newest change first (the /memory command). */
  async aboutHere(subject: MemorySubject, place: MemoryPlace, limit: number): Promise<MemoryEntry[]> {
    const found: MemoryEntry[] = [];
    let beforeId: number | undefined;
    while (found.length < limit) {
      const page = await this.deps.store.list({
        subject,
        limit: LIST_PAGE,
        ...(beforeId === undefined ? {} : { beforeId }),
      });
      found.push(...page.filter((entry) => visibleAt(entry, place)));
      if (page.length < LIST_PAGE) break;
      beforeId = page.at(-1)!.id;
    }
    return found.slice(0, limit);
  }

  /**
   * A request the rules refuse (visibility.ts): logged at debug, and its reason handed back for
   * the one who asked (the model, a plugin).
   */
  refused(reason: string, context: { sessionId: string; by: string }): string {
    this.deps.logger.debug({ ...context, reason }, "memory request refused");
    return reason;
  }

  private add(memory: Omit<NewMemory, "at">, content: string, at: number): Promise<MemoryEntry> {
    const { subject, subjectName, origin, sessionId, sources } = memory;
    return this.deps.store.add({
      subject,
      subjectName,
      content,
      origin,
      ...(memory.pluginId === undefined ? {} : { pluginId: memory.pluginId }),
      sessionId,
      sources,
      at,
    });
  }

  /** The memory about `subject`, changeable here, that says the same as `content`, if any. */
  private async sameFact(
    subject: MemorySubject,
    content: string,
    place: MemoryPlace,
  ): Promise<MemoryEntry | undefined> {
    const terms = new Set(memoryTerms(content));
    if (terms.size === 0) return undefined;
    const hits = await this.deps.store.search({ query: content, subjects: [subject], limit: 5 });
    return hits.find(
      (hit) =>
        changeableAt(hit.entry, place) &&
        similarity(terms, new Set(memoryTerms(hit.entry.content))) >= SAME_FACT_SIMILARITY,
    )?.entry;
  }

  private emitLearned(
    origin: MemoryOrigin,
    sessionId: string | undefined,
    replyId: string | undefined,
    result: RememberResult,
  ): void {
    const { id, subject, subjectName, content } = result.entry;
    this.deps.monitor.emit({
      type: "memory.learned",
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(replyId === undefined ? {} : { replyId }),
      data: {
        origin,
        added: result.previous === undefined ? [{ id, subject, subjectName, content }] : [],
        updated: result.previous === undefined ? [] : [{ id, content, previous: result.previous }],
        deleted: [],
      },
    });
  }

  private emitForgotten(sessionId: string | undefined, data: Record<string, unknown>): void {
    this.deps.monitor.emit({
      type: "memory.forgotten",
      ...(sessionId === undefined ? {} : { sessionId }),
      data,
    });
  }
}

/** Jaccard similarity of two term sets. */
export function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** The sources of a fact: these messages (the bot's own never count). */
export function sourcesOf(messages: ChatMessage[]): MemorySource[] {
  return messages
    .filter((message) => !message.fromSelf)
    .map(({ sessionId, messageId, userId, time }) => ({ sessionId, messageId, userId, time }));
}
