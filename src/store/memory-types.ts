/**
 * Long-term memory as the store keeps it: short facts about people and groups, each
 * with where, when and from which messages it was learned. The memory service
 * (src/memory/memory-service.ts) decides what a turn recalls and what it learns. Declared here
 * because store/ may not import memory/ (a higher layer); src/memory/types.ts re-exports it.
 */

/**
 * Whom a memory is about. A person is known by platform and user id across every group and
 * private chat (`person:onebot:10001`); a group by platform and group id (`group:onebot:20000`),
 * recalled only in that group.
 */
export type MemorySubject = `person:${string}:${string}` | `group:${string}:${string}`;

export function personSubject(platform: string, userId: string): MemorySubject {
  return `person:${platform}:${userId}`;
}

export function groupSubject(platform: string, groupId: string): MemorySubject {
  return `group:${platform}:${groupId}`;
}

/** How a memory came to be: the planner's `remember`, the background learner, a plugin, the console. */
export type MemoryOrigin = "tool" | "learned" | "plugin" | "console";

/** One message a memory was learned from. */
export interface MemorySource {
  sessionId: string;
  /** Platform message id. */
  messageId: string;
  /** Its sender's platform user id: `/forget` also removes what was learned only from them. */
  userId: string;
  /** Unix ms: the message's time. */
  time: number;
}

export interface MemoryEntry {
  id: number;
  subject: MemorySubject;
  /** How the subject was called when it was last learned (`张三`, the group's name or id). */
  subjectName: string;
  /** The fact itself, one short sentence (`下周二要去成都出差`). */
  content: string;
  origin: MemoryOrigin;
  /** The plugin id when `origin` is `plugin`. */
  pluginId?: string;
  /** The session it was first learned in. */
  sessionId: string;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms: content last changed. */
  updatedAt: number;
  /** How often it was learned or confirmed again (1 when new): ranking favours confirmed facts. */
  confirmations: number;
  /** Unix ms: last learned or confirmed; ranking favours recent facts. */
  confirmedAt: number;
  sources: MemorySource[];
}

export interface NewMemory {
  subject: MemorySubject;
  subjectName: string;
  content: string;
  origin: MemoryOrigin;
  pluginId?: string;
  sessionId: string;
  sources: MemorySource[];
  /** Unix ms. */
  at: number;
}

/** What a search may return. */
export interface MemorySearch {
  /** Free text (any language): matched by terms (CJK bigrams, words), ranked by BM25. */
  query?: string;
  /** Only memories about these subjects; any subject when absent. */
  subjects?: MemorySubject[];
  /** Memories about these subjects are never returned (group memories of other groups, …). */
  excludeSubjectPrefix?: string[];
  limit: number;
  /** Unix ms the recency of confirmations is measured from; now when absent. */
  now?: number;
}

/** A search hit: the entry and its score (higher is better; comparable within one search). */
export interface MemoryHit {
  entry: MemoryEntry;
  score: number;
}

/** A page of memories for the console and `/memory`, newest change first. */
export interface MemoryListQuery {
  subject?: MemorySubject;
  /** Substring of content or subject name. */
  search?: string;
  /** Only entries updated before this id's entry (paging). */
  beforeId?: number;
  limit: number;
}

/**
 * Curated memory. Answers asynchronously like every store (the PostgreSQL one answers from a server).
 * Never pruned by `storage.retention`: only deleted on request.
 */
export interface MemoryStore {
  add(memory: NewMemory): Promise<MemoryEntry>;
  /**
   * New content or subject name, sources added; undefined when the id is gone. A change that
   * carries `sources` or `confirmedAt` counts as learned again (confirmations + 1, confirmed at
   * `confirmedAt`, default now); an edit of content or name alone (the console) does not.
   * New content drops the stored vector (it described the old content).
   */
  update(
    id: number,
    change: { content?: string; subjectName?: string; sources?: MemorySource[]; confirmedAt?: number },
  ): Promise<MemoryEntry | undefined>;
  get(id: number): Promise<MemoryEntry | undefined>;
  /** Ranked by relevance to `query` (BM25), recency of confirmation and confirmations. */
  search(search: MemorySearch): Promise<MemoryHit[]>;
  list(query: MemoryListQuery): Promise<MemoryEntry[]>;
  count(): Promise<number>;
  /** Deletes entries by id; resolves with how many were deleted. */
  delete(ids: number[]): Promise<number>;
  /**
   * Deletes what is about `subject`, and what was learned only from `userId`'s messages in the
   * sessions whose ids start with `sessionPrefix` (the person's platform or stdio channel: the
   * same user id elsewhere is someone else); resolves with the ids deleted.
   */
  forgetPerson(subject: MemorySubject, userId: string, sessionPrefix: string): Promise<number[]>;
  /**
   * A message was deleted (recalled): memories learned only from it are deleted, the others lose
   * it as a source. Resolves with the ids deleted.
   */
  forgetMessage(sessionId: string, messageId: string): Promise<number[]>;
  /** Which of these messages of a session were deleted (forgetMessage): the learner skips them. */
  deletedAmong(sessionId: string, messageIds: string[]): Promise<Set<string>>;
  /** Where the background learner stopped in a session (store row id of the last message read). */
  learnedUpTo(sessionId: string): Promise<number>;
  setLearnedUpTo(sessionId: string, rowId: number): Promise<void>;
  /** Learning passes made in a session on `day` (a `YYYY-MM-DD` date), and counting one more. */
  passesOn(sessionId: string, day: string): Promise<number>;
  countPass(sessionId: string, day: string): Promise<void>;
  /**
   * `/forget` at `at`: messages of `subject`'s person sent before then are never learned from
   * again (the learner may not have read every chat yet).
   */
  markForgotten(subject: MemorySubject, at: number): Promise<void>;
  /** When each of these subjects last asked to be forgotten (absent: never). */
  forgottenAt(subjects: MemorySubject[]): Promise<Map<MemorySubject, number>>;
  /** The embedding of an entry, when one was stored (`llm.models.embedding`). */
  setVector(id: number, model: string, vector: Float32Array): Promise<void>;
  /** Vectors of these entries made by `model` (others have none or another model's). */
  vectors(ids: number[], model: string): Promise<Map<number, Float32Array>>;
}
