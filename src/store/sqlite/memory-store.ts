import type { Database, Statement } from "better-sqlite3";
import { CANDIDATES, type Candidate, rankCandidates } from "../memory-ranking.ts";
import {
  MEMORY_COLUMNS,
  type MemoryRow,
  type SourceRow,
  toMemoryEntry,
  toMemorySource,
} from "../memory-rows.ts";
import type {
  MemoryEntry,
  MemoryHit,
  MemoryListQuery,
  MemorySearch,
  MemorySource,
  MemoryStore,
  MemorySubject,
  NewMemory,
} from "../memory-types.ts";
import { decodeVector, encodeVector } from "../memory-vectors.ts";
import { matchExpression, subjectToken, termsOf } from "./memory-search.ts";

type MemoryChange = Parameters<MemoryStore["update"]>[1];

/** Subjects filter: `?` is a JSON array of subjects. */
const IN_SUBJECTS = "m.subject IN (SELECT value FROM json_each(?))";
/** Excluded prefixes: `?` is a JSON array of prefixes (empty: none). */
const NOT_EXCLUDED =
  "NOT EXISTS (SELECT 1 FROM json_each(?) e WHERE substr(m.subject, 1, length(e.value)) = e.value)";

/**
 * Curated memory on SQLite. Written straight away, not batched: memory writes are rare and
 * must be readable at once (recalled in the next turn). The full-text index is kept in step
 * in the same transaction as each change.
 */
export class SqliteMemoryStore implements MemoryStore {
  readonly #insert: Statement<
    [string, string, string, string, string | null, string, number, number, number]
  >;
  readonly #insertSource: Statement<[number, string, string, string, number]>;
  readonly #insertTerms: Statement<[number, string, string]>;
  readonly #deleteTerms: Statement<[number]>;
  readonly #get: Statement<[number]>;
  readonly #sources: Statement<[number]>;
  readonly #setContent: Statement<[string, string, number, number]>;
  readonly #clearVector: Statement<[number]>;
  readonly #confirm: Statement<[number, number]>;
  readonly #count: Statement<[]>;
  readonly #anyMemory: Statement<[]>;
  readonly #deleteMemory: Statement<[number]>;
  readonly #deleteSources: Statement<[number]>;
  readonly #aboutOrOnlyFrom: Statement<{ subject: string; userId: string; prefix: string }>;
  readonly #withMessage: Statement<[string, string]>;
  readonly #deleteMessageSource: Statement<[string, string]>;
  readonly #sourceCount: Statement<[number]>;
  readonly #progress: Statement<[string]>;
  readonly #passes: Statement<[string, string]>;
  readonly #countPass: Statement<[string, string]>;
  readonly #setProgress: Statement<[string, number]>;
  readonly #markForgotten: Statement<[string, number]>;
  readonly #forgotten: Statement<[string]>;
  readonly #setVector: Statement<[Buffer, string, number]>;
  readonly #vector: Statement<[number, string]>;
  /** Candidates by query (a MATCH expression naming the subjects when there are some). */
  readonly #matching: Statement<[string]>;
  /** Candidates without a query. */
  readonly #recent: { subjects: Statement; any: Statement };
  readonly #add: (memory: NewMemory) => number;
  readonly #update: (id: number, change: MemoryChange) => boolean;
  readonly #delete: (ids: number[]) => number;
  readonly #forgetPerson: (subject: MemorySubject, userId: string, prefix: string) => number[];
  readonly #forgetMessage: (sessionId: string, messageId: string) => number[];
  readonly #markDeleted: Statement<[string, string]>;
  readonly #isDeleted: Statement<[string, string]>;
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO memories (subject, subject_name, content, origin, plugin_id, session_id,
         created_at, updated_at, confirmations, confirmed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
    );
    this.#insertSource = db.prepare(
      `INSERT INTO memory_sources (memory_id, session_id, message_id, user_id, time)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    this.#insertTerms = db.prepare("INSERT INTO memory_terms (rowid, terms, subject) VALUES (?, ?, ?)");
    this.#deleteTerms = db.prepare("DELETE FROM memory_terms WHERE rowid = ?");
    this.#get = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ?`);
    this.#sources = db.prepare(
      "SELECT session_id, message_id, user_id, time FROM memory_sources WHERE memory_id = ? ORDER BY time, rowid",
    );
    this.#setContent = db.prepare(
      "UPDATE memories SET content = ?, subject_name = ?, updated_at = ? WHERE id = ?",
    );
    // An embedding describes the content it was made from.
    this.#clearVector = db.prepare("UPDATE memories SET vector = NULL, vector_model = NULL WHERE id = ?");
    this.#confirm = db.prepare(
      "UPDATE memories SET confirmations = confirmations + 1, confirmed_at = ? WHERE id = ?",
    );
    this.#count = db.prepare("SELECT COUNT(*) AS n FROM memories");
    this.#anyMemory = db.prepare("SELECT EXISTS (SELECT 1 FROM memories)").pluck();
    this.#deleteMemory = db.prepare("DELETE FROM memories WHERE id = ?");
    this.#deleteSources = db.prepare("DELETE FROM memory_sources WHERE memory_id = ?");
    this.#aboutOrOnlyFrom = db
      .prepare(
        `SELECT id FROM memories WHERE subject = @subject
         UNION
         SELECT s.memory_id FROM memory_sources s
         WHERE s.user_id = @userId AND substr(s.session_id, 1, length(@prefix)) = @prefix
           AND NOT EXISTS (
             SELECT 1 FROM memory_sources o WHERE o.memory_id = s.memory_id
               AND (o.user_id <> @userId OR substr(o.session_id, 1, length(@prefix)) <> @prefix))`,
      )
      .pluck();
    this.#withMessage = db
      .prepare("SELECT memory_id FROM memory_sources WHERE session_id = ? AND message_id = ?")
      .pluck();
    this.#deleteMessageSource = db.prepare(
      "DELETE FROM memory_sources WHERE session_id = ? AND message_id = ?",
    );
    this.#sourceCount = db.prepare("SELECT COUNT(*) AS n FROM memory_sources WHERE memory_id = ?");
    this.#progress = db.prepare("SELECT row_id FROM memory_progress WHERE session_id = ?").pluck();
    this.#setProgress = db.prepare(
      `INSERT INTO memory_progress (session_id, row_id) VALUES (?, ?)
       ON CONFLICT (session_id) DO UPDATE SET row_id = excluded.row_id`,
    );
    this.#passes = db.prepare("SELECT passes FROM memory_progress WHERE session_id = ? AND day = ?").pluck();
    this.#countPass = db.prepare(
      `INSERT INTO memory_progress (session_id, row_id, day, passes) VALUES (?, 0, ?, 1)
       ON CONFLICT (session_id) DO UPDATE SET
         passes = CASE WHEN day = excluded.day THEN passes + 1 ELSE 1 END, day = excluded.day`,
    );
    this.#markForgotten = db.prepare(
      `INSERT INTO memory_forgotten (subject, at) VALUES (?, ?)
       ON CONFLICT (subject) DO UPDATE SET at = MAX(at, excluded.at)`,
    );
    this.#forgotten = db.prepare(
      `SELECT subject, at FROM memory_forgotten WHERE subject IN (SELECT value FROM json_each(?))`,
    );
    this.#setVector = db.prepare("UPDATE memories SET vector = ?, vector_model = ? WHERE id = ?");
    this.#vector = db.prepare("SELECT vector FROM memories WHERE id = ? AND vector_model = ?").pluck();

    // The subject column weighs nothing: it only narrows the match. Subjects are filtered in
    // the index, so only the best CANDIDATES are joined with their memories.
    this.#matching = db.prepare(
      `SELECT m.id, m.confirmations, m.confirmed_at, -c.bm25 AS relevance FROM (
         SELECT rowid AS id, bm25(memory_terms, 1.0, 0.0) AS bm25 FROM memory_terms
         WHERE memory_terms MATCH ? ORDER BY bm25 LIMIT ${CANDIDATES}
       ) c JOIN memories m ON m.id = c.id`,
    );
    const recent = (where: string) =>
      db.prepare(
        `SELECT m.id, m.confirmations, m.confirmed_at FROM memories m
         WHERE ${where} ORDER BY m.confirmed_at DESC LIMIT ${CANDIDATES}`,
      );
    this.#recent = {
      subjects: recent(`${IN_SUBJECTS} AND ${NOT_EXCLUDED}`),
      any: recent(NOT_EXCLUDED),
    };

    this.#add = db.transaction((memory: NewMemory) => {
      const { subject, subjectName, content, origin, pluginId, sessionId, at } = memory;
      const id = Number(
        this.#insert.run(subject, subjectName, content, origin, pluginId ?? null, sessionId, at, at, at)
          .lastInsertRowid,
      );
      this.#addSources(id, memory.sources);
      this.#insertTerms.run(id, termsOf(subjectName, content), subjectToken(subject));
      return id;
    });
    this.#update = db.transaction((id: number, change: MemoryChange) => {
      const row = this.#get.get(id) as MemoryRow | undefined;
      if (row === undefined) return false;
      const at = change.confirmedAt ?? Date.now();
      const content = change.content ?? row.content;
      const subjectName = change.subjectName ?? row.subject_name;
      if (content !== row.content || subjectName !== row.subject_name) {
        this.#setContent.run(content, subjectName, at, id);
        if (content !== row.content) this.#clearVector.run(id);
        this.#deleteTerms.run(id);
        this.#insertTerms.run(id, termsOf(subjectName, content), subjectToken(row.subject));
      }
      if (change.sources !== undefined) this.#addSources(id, change.sources);
      if (change.sources !== undefined || change.confirmedAt !== undefined) this.#confirm.run(at, id);
      return true;
    });
    this.#delete = db.transaction((ids: number[]) => {
      let deleted = 0;
      for (const id of new Set(ids)) {
        this.#deleteSources.run(id);
        this.#deleteTerms.run(id);
        deleted += this.#deleteMemory.run(id).changes;
      }
      return deleted;
    });
    this.#forgetPerson = db.transaction((subject: MemorySubject, userId: string, prefix: string) => {
      const ids = this.#aboutOrOnlyFrom.all({ subject, userId, prefix }) as number[];
      this.#delete(ids);
      return ids;
    });
    this.#markDeleted = db.prepare(
      "INSERT INTO memory_deleted_messages (session_id, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
    );
    this.#isDeleted = db.prepare(
      "SELECT 1 FROM memory_deleted_messages WHERE session_id = ? AND message_id = ?",
    );
    this.#forgetMessage = db.transaction((sessionId: string, messageId: string) => {
      this.#markDeleted.run(sessionId, messageId);
      const ids = this.#withMessage.all(sessionId, messageId) as number[];
      this.#deleteMessageSource.run(sessionId, messageId);
      const orphans = ids.filter((id) => (this.#sourceCount.get(id) as { n: number }).n === 0);
      this.#delete(orphans);
      return orphans;
    });
  }

  async deletedAmong(sessionId: string, messageIds: string[]): Promise<Set<string>> {
    return new Set(messageIds.filter((messageId) => this.#isDeleted.get(sessionId, messageId) !== undefined));
  }

  async add(memory: NewMemory): Promise<MemoryEntry> {
    return this.#read(this.#add(memory)) as MemoryEntry;
  }

  async update(id: number, change: MemoryChange): Promise<MemoryEntry | undefined> {
    return this.#update(id, change) ? this.#read(id) : undefined;
  }

  async get(id: number): Promise<MemoryEntry | undefined> {
    return this.#read(id);
  }

  /**
   * Score = relevance × recency × (1 + log2(confirmations)), higher is better:
   * - relevance: −bm25() of the query's terms (FTS5 gives lower-is-better negatives); 1 without
   *   a query. Only the CANDIDATES best by BM25 (most recently confirmed without a query) are
   *   read and ranked. Subjects and excluded prefixes are applied inside the full-text index, so
   *   a turn's search about its sender and group scores only their memories.
   * - recency: 0.5 ^ (age of the last confirmation / 30 days).
   * - confirmations: a fact learned 4 times weighs 3× one learned once.
   */
  async search(search: MemorySearch): Promise<MemoryHit[]> {
    if (search.limit <= 0 || search.subjects?.length === 0) return [];
    // Every turn searches; until something is remembered, a full-text query is its dearest part.
    if (this.#anyMemory.get() === 0) return [];
    let candidates: Candidate[];
    if (search.query === undefined) {
      const excluded = JSON.stringify(search.excludeSubjectPrefix ?? []);
      candidates = (
        search.subjects === undefined
          ? this.#recent.any.all(excluded)
          : this.#recent.subjects.all(JSON.stringify(search.subjects), excluded)
      ) as Candidate[];
    } else {
      const match = matchExpression(search.query, search.subjects, search.excludeSubjectPrefix);
      if (match === undefined) return [];
      candidates = this.#matching.all(match) as Candidate[];
    }
    return rankCandidates(candidates, search.now ?? Date.now(), search.limit).map(({ id, score }) => ({
      entry: this.#read(id) as MemoryEntry,
      score,
    }));
  }

  /** Prepared per call: the console pages rarely, and each filter shape wants its own index. */
  async list(query: MemoryListQuery): Promise<MemoryEntry[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.subject !== undefined) {
      where.push("m.subject = ?");
      params.push(query.subject);
    }
    if (query.search !== undefined && query.search !== "") {
      where.push("(instr(m.content, ?) > 0 OR instr(m.subject_name, ?) > 0)");
      params.push(query.search, query.search);
    }
    if (query.beforeId !== undefined) {
      where.push("(m.updated_at, m.id) < (SELECT updated_at, id FROM memories WHERE id = ?)");
      params.push(query.beforeId);
    }
    const rows = this.#db
      .prepare(
        `SELECT ${MEMORY_COLUMNS} FROM memories m
         ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`}
         ORDER BY m.updated_at DESC, m.id DESC LIMIT ?`,
      )
      .all(...params, query.limit) as MemoryRow[];
    return rows.map((row) => this.#entryOf(row));
  }

  async count(): Promise<number> {
    return (this.#count.get() as { n: number }).n;
  }

  async delete(ids: number[]): Promise<number> {
    return this.#delete(ids);
  }

  async forgetPerson(subject: MemorySubject, userId: string, sessionPrefix: string): Promise<number[]> {
    return this.#forgetPerson(subject, userId, sessionPrefix);
  }

  async forgetMessage(sessionId: string, messageId: string): Promise<number[]> {
    return this.#forgetMessage(sessionId, messageId);
  }

  async learnedUpTo(sessionId: string): Promise<number> {
    return (this.#progress.get(sessionId) as number | undefined) ?? 0;
  }

  async setLearnedUpTo(sessionId: string, rowId: number): Promise<void> {
    this.#setProgress.run(sessionId, rowId);
  }

  async passesOn(sessionId: string, day: string): Promise<number> {
    return (this.#passes.get(sessionId, day) as number | undefined) ?? 0;
  }

  async countPass(sessionId: string, day: string): Promise<void> {
    this.#countPass.run(sessionId, day);
  }

  async markForgotten(subject: MemorySubject, at: number): Promise<void> {
    this.#markForgotten.run(subject, at);
  }

  async forgottenAt(subjects: MemorySubject[]): Promise<Map<MemorySubject, number>> {
    const rows = this.#forgotten.all(JSON.stringify(subjects)) as { subject: MemorySubject; at: number }[];
    return new Map(rows.map((row) => [row.subject, row.at]));
  }

  async setVector(id: number, model: string, vector: Float32Array): Promise<void> {
    this.#setVector.run(encodeVector(vector), model, id);
  }

  async vectors(ids: number[], model: string): Promise<Map<number, Float32Array>> {
    const found = new Map<number, Float32Array>();
    for (const id of new Set(ids)) {
      const blob = this.#vector.get(id, model) as Buffer | null | undefined;
      if (blob) found.set(id, decodeVector(blob));
    }
    return found;
  }

  #addSources(id: number, sources: MemorySource[]): void {
    for (const source of sources) {
      this.#insertSource.run(id, source.sessionId, source.messageId, source.userId, source.time);
    }
  }

  #read(id: number): MemoryEntry | undefined {
    const row = this.#get.get(id) as MemoryRow | undefined;
    return row === undefined ? undefined : this.#entryOf(row);
  }

  #entryOf(row: MemoryRow): MemoryEntry {
    return toMemoryEntry(row, (this.#sources.all(row.id) as SourceRow[]).map(toMemorySource));
  }
}
