import type { ZonedClock } from "../context/clock-text.ts";
import { cosine, type Embedder } from "../llm/embedder.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { MemorySettings } from "./config.ts";
import { linesWithin, memoryLine } from "./memory-lines.ts";
import { memoryTerms } from "./terms.ts";
import {
  type MemoryEntry,
  type MemoryHit,
  type MemoryOrigin,
  type MemorySource,
  type MemoryStore,
  type MemorySubject,
  type NewMemory,
  personSubject,
} from "./types.ts";
import {
  groupSubjectOf,
  type MemoryPlace,
  placeOf,
  senderSubject,
  userIdOf,
  visibleAt,
  visibleSearch,
} from "./visibility.ts";

export interface MemoryServiceDeps {
  store: MemoryStore;
  settings: () => MemorySettings;
  prompts: () => PromptTemplates;
  clock: () => ZonedClock;
  /** Embeddings for vector similarity, when `llm.models.embedding` names a model (read per call: reloads swap it). */
  embedder?: () => Pick<Embedder, "configured" | "embed"> | undefined;
  monitor: Monitor;
  logger: Logger;
}

/** What a turn recalls for: its new messages and the recent chat before them. */
export interface RecallTurn {
  replyId: string;
  messages: ChatMessage[];
  /** The history window's messages: the people in it are the others whose facts may matter. */
  participants: ChatMessage[];
}

/** The `llm.models` task whose models embed memories and queries. */
export const EMBEDDING_TASK = "embedding";
/** A turn waits this long for its query's embedding, then recalls by terms alone. */
const QUERY_EMBEDDING_TIMEOUT_MS = 2_000;

/**
 * The others in the recent chat whose facts a turn's recall may bring (the last to speak): each
 * one more widens the term search, whose cost grows with the memories it scores.
 */
const PRESENT_PEOPLE = 6;
/** Most characters of the new messages a turn's recall searches with. */
const MAX_QUERY_CHARS = 400;
/** How many memories one forgetting of a group deletes per store round trip. */
const FORGET_PAGE = 500;
/** Results of the recall tool. */
const TOOL_RECALL_LIMIT = 10;
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

  /**
   * The section of memories a turn's prompts show (empty when there are none): facts about the
   * new messages' senders, the people they mention and this group that match what they said,
   * the senders' other facts, then facts about the others in the recent chat that match,
   * within `memory.recallLimit` and `recallChars`. With an embedding model, vector similarity
   * to what was said reorders these candidates (and the recent chat's people's other facts).
   * Searches stay within named subjects, so they cost the same at 100,000 memories as at 100.
   */
  async recallForTurn(turn: RecallTurn): Promise<string> {
    try {
      return await this.recall(turn);
    } catch (error) {
      // A turn without its memories still answers.
      this.deps.logger.warn({ err: error, replyId: turn.replyId }, "could not recall memories for a turn");
      return "";
    }
  }

  private async recall(turn: RecallTurn): Promise<string> {
    const settings = this.deps.settings();
    const spoken = turn.messages.filter((message) => !message.fromSelf);
    const first = spoken[0];
    if (!settings.enabled || first === undefined || settings.recallLimit === 0) return "";
    const place = placeOf(first);
    const senders = unique(spoken.map(senderSubject).reverse());
    const mentioned = spoken.flatMap((message) => mentionedSubjects(message));
    const group = groupSubjectOf(place);
    const present = unique(
      turn.participants
        .filter((message) => !message.fromSelf)
        .map(senderSubject)
        .reverse(),
    )
      .filter((subject) => !senders.includes(subject))
      .slice(0, PRESENT_PEOPLE);
    const query = spoken
      .map((message) => renderSegments(message.segments))
      .join("\n")
      .slice(-MAX_QUERY_CHARS);
    const embedder = this.deps.embedder?.();
    const embedding = embedder?.configured(EMBEDDING_TASK)
      ? embedder.embed({
          task: EMBEDDING_TASK,
          texts: [query],
          sessionId: place.sessionId,
          signal: AbortSignal.timeout(QUERY_EMBEDDING_TIMEOUT_MS),
        })
      : undefined;
    // Each memory found is read whole (its sources too): find little more than can be shown,
    // more when vectors will reorder the candidates.
    const limit = settings.recallLimit * (embedding ? 4 : 1);
    const { store } = this.deps;
    const named = unique([...senders, ...mentioned, ...(group === undefined ? [] : [group])]);
    // One term search over everyone in view; the named (speakers, mentioned, the group) first.
    const [matching, theirOthers, presentOthers] = await Promise.all([
      store.search({ query, subjects: [...named, ...present], limit: limit * 2 }),
      store.search({ subjects: senders, limit }),
      embedding && present.length > 0 ? store.search({ subjects: present, limit }) : [],
    ]);
    const isNamed = (hit: MemoryHit) => named.includes(hit.entry.subject);
    const searches = [
      matching.filter(isNamed),
      theirOthers,
      matching.filter((hit) => !isNamed(hit)),
      presentOthers,
    ];
    let candidates = uniqueEntries(searches.flat());
    const queryEmbedding = await embedding;
    if (queryEmbedding) {
      const vectors = await store.vectors(
        candidates.map((entry) => entry.id),
        queryEmbedding.ref,
      );
      candidates = byVectorSimilarity(candidates, vectors, queryEmbedding.vectors[0]!);
    }
    const prompts = this.deps.prompts();
    const clock = this.deps.clock();
    const { lines, shown } = linesWithin(
      candidates,
      (entry) => memoryLine(entry, prompts, clock),
      settings.recallLimit,
      settings.recallChars,
    );
    if (shown.length === 0) return "";
    this.deps.monitor.emit({
      type: "memory.recalled",
      replyId: turn.replyId,
      sessionId: place.sessionId,
      data: {
        ids: shown.map((entry) => entry.id),
        chars: lines.join("\n").length,
        entries: shown.map(({ id, subject, subjectName, content }) => ({
          id,
          subject,
          subjectName,
          content,
        })),
      },
    });
    return prompts.render("memories", { lines: lines.join("\n") });
  }

  /** Memories visible here that match `query`, best first (the recall tool, plugins). */
  async search(place: MemoryPlace, query: string, limit: number): Promise<MemoryEntry[]> {
    const { store } = this.deps;
    // A user id in the query names a person: what is known about them comes first.
    const people = unique(query.match(/\b\d{5,12}\b/g) ?? []).map((id) => personSubject(place.platform, id));
    const named = people.length > 0 ? await store.search({ subjects: people, limit }) : [];
    const searches = visibleSearch(place, query, limit);
    const hits = (await Promise.all(searches.map((search) => store.search(search)))).flat();
    return uniqueEntries([...named, ...hits.sort((a, b) => b.score - a.score)]).slice(0, limit);
  }

  /** Memories about one subject that match `query` (empty: the newest), best first (plugins' `about`). */
  async searchAbout(subject: MemorySubject, query: string, limit: number): Promise<MemoryEntry[]> {
    const text = query.trim();
    const hits = await this.deps.store.search({
      ...(text === "" ? {} : { query: text }),
      subjects: [subject],
      limit,
    });
    return hits.map((hit) => hit.entry);
  }

  /** The recall tool's answer: the matching memories as the prompt shows them. */
  async recallText(place: MemoryPlace, query: string): Promise<string> {
    const found = await this.search(place, query, TOOL_RECALL_LIMIT);
    const prompts = this.deps.prompts();
    if (found.length === 0) return prompts.render("result_recalled_none");
    const clock = this.deps.clock();
    return prompts.render("result_recalled", {
      lines: found.map((entry) => memoryLine(entry, prompts, clock)).join("\n"),
    });
  }

  /**
   * Remembers a fact: replaces the memory `replaces` names (when visible here), else confirms
   * and rewords the same fact already known about the subject, else adds it.
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
        ? await this.sameFact(memory.subject, content)
        : await this.visibleEntry(memory.replaces, memory.place);
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
      ids = await store.forgetPerson(subject, userId);
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

  /** The memories about one subject, newest change first (the /memory command). */
  about(subject: MemorySubject, limit: number): Promise<MemoryEntry[]> {
    return this.deps.store.list({ subject, limit });
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

  /** The memory about `subject` that says the same as `content`, if any. */
  private async sameFact(subject: MemorySubject, content: string): Promise<MemoryEntry | undefined> {
    const terms = new Set(memoryTerms(content));
    if (terms.size === 0) return undefined;
    const hits = await this.deps.store.search({ query: content, subjects: [subject], limit: 5 });
    return hits.find(
      (hit) => similarity(terms, new Set(memoryTerms(hit.entry.content))) >= SAME_FACT_SIMILARITY,
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

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** People a message @-mentions (the bot and @all excluded). */
function mentionedSubjects(message: ChatMessage): MemorySubject[] {
  return message.segments.flatMap((segment) =>
    segment.type === "at" &&
    typeof segment.data.qq === "string" &&
    /^\d+$/.test(segment.data.qq) &&
    segment.data.qq !== message.selfId
      ? [personSubject(message.platform, segment.data.qq)]
      : [],
  );
}

/**
 * Candidates reordered by their place in the term search's order blended evenly with their
 * vector similarity to the query; one without a vector (made before an embedding model was
 * set, or by another model) counts as of average similarity.
 */
function byVectorSimilarity(
  candidates: MemoryEntry[],
  vectors: Map<number, Float32Array>,
  query: Float32Array,
): MemoryEntry[] {
  const similarities = new Map<number, number>();
  for (const [id, vector] of vectors) similarities.set(id, cosine(vector, query));
  const known = [...similarities.values()];
  const average = known.length > 0 ? known.reduce((sum, value) => sum + value, 0) / known.length : 0;
  const scored = candidates.map((entry, position) => ({
    entry,
    score: 0.5 * (1 - position / candidates.length) + 0.5 * (similarities.get(entry.id) ?? average),
  }));
  return scored.sort((a, b) => b.score - a.score).map(({ entry }) => entry);
}

/** Entries in order of first appearance, each once. */
function uniqueEntries(hits: MemoryHit[]): MemoryEntry[] {
  const seen = new Set<number>();
  const entries: MemoryEntry[] = [];
  for (const { entry } of hits) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    entries.push(entry);
  }
  return entries;
}

/** The sources of a fact: these messages (the bot's own never count). */
export function sourcesOf(messages: ChatMessage[]): MemorySource[] {
  return messages
    .filter((message) => !message.fromSelf)
    .map(({ sessionId, messageId, userId, time }) => ({ sessionId, messageId, userId, time }));
}
