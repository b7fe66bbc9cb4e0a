import { rankCandidates } from "../memory-ranking.ts";
import {
  MEMORY_COLUMNS,
  type MemoryRow,
  type SourceRow,
  toMemoryEntry,
  toMemorySource,
} from "../memory-rows.ts";
import { memoryEntryTerms, memoryQueryTerms } from "../memory-terms.ts";
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
import type { PgDatabase } from "./database.ts";
import { findCandidates, reindex } from "./memory-search.ts";
import type { PgQuery } from "./pg-query.ts";

type MemoryChange = Parameters<MemoryStore["update"]>[1];

/**
 * Curated memory on PostgreSQL. Written straight away, not batched: memory writes are rare and
 * must be readable at once (recalled in the next turn). Each change updates the memory, its
 * sources and the search statistics in one transaction.
 */
export class PgMemoryStore implements MemoryStore {
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  async add(memory: NewMemory): Promise<MemoryEntry> {
    const { subject, subjectName, content, origin, pluginId, sessionId, at } = memory;
    const terms = memoryEntryTerms(subjectName, content);
    return this.#db.transaction(async (tx) => {
      const [row] = await tx.query<{ id: number }>(
        `INSERT INTO memories (subject, subject_name, content, origin, plugin_id, session_id,
           created_at, updated_at, confirmations, confirmed_at, terms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, 1, $7, $8) RETURNING id`,
        [subject, subjectName, content, origin, pluginId ?? null, sessionId, at, terms],
      );
      const id = (row as { id: number }).id;
      await addSources(tx, id, memory.sources);
      await reindex(tx, [], [terms]);
      return (await this.#read(tx, id)) as MemoryEntry;
    });
  }

  async update(id: number, change: MemoryChange): Promise<MemoryEntry | undefined> {
    return this.#db.transaction(async (tx) => {
      const [row] = await tx.query<MemoryRow & { terms: string[] }>(
        `SELECT ${MEMORY_COLUMNS}, m.terms FROM memories m WHERE m.id = $1 FOR UPDATE`,
        [id],
      );
      if (row === undefined) return undefined;
      const at = change.confirmedAt ?? Date.now();
      const content = change.content ?? row.content;
      const subjectName = change.subjectName ?? row.subject_name;
      const newTerms =
        content !== row.content || subjectName !== row.subject_name
          ? memoryEntryTerms(subjectName, content)
          : undefined;
      if (newTerms !== undefined) {
        // An embedding describes the content it was made from.
        await tx.query(
          `UPDATE memories SET content = $1, subject_name = $2, updated_at = $3, terms = $4,
             vector = CASE WHEN $5 THEN NULL ELSE vector END,
             vector_model = CASE WHEN $5 THEN NULL ELSE vector_model END
           WHERE id = $6`,
          [content, subjectName, at, newTerms, content !== row.content, id],
        );
      }
      if (change.sources !== undefined) await addSources(tx, id, change.sources);
      if (change.sources !== undefined || change.confirmedAt !== undefined) {
        await tx.query(
          "UPDATE memories SET confirmations = confirmations + 1, confirmed_at = $1 WHERE id = $2",
          [at, id],
        );
      }
      if (newTerms !== undefined) await reindex(tx, [row.terms], [newTerms]);
      return this.#read(tx, id);
    });
  }

  async get(id: number): Promise<MemoryEntry | undefined> {
    return this.#read(this.#db, id);
  }

  /**
   * Ranked like the SQLite store (../memory-ranking.ts): the CANDIDATES best by BM25 among the
   * subjects asked for (most recently confirmed without a query), then relevance × recency ×
   * confirmations; equal scores put the newer memory first.
   */
  async search(search: MemorySearch): Promise<MemoryHit[]> {
    if (search.limit <= 0 || search.subjects?.length === 0) return [];
    const queryTerms = search.query === undefined ? undefined : memoryQueryTerms(search.query);
    if (queryTerms?.length === 0) return [];
    const candidates = await findCandidates(this.#db, search, queryTerms);
    const ranked = rankCandidates(candidates, search.now ?? Date.now(), search.limit);
    const entries = await this.#entries(
      this.#db,
      ranked.map((hit) => hit.id),
    );
    // A memory deleted between the two reads is left out.
    return ranked.flatMap(({ id, score }) => {
      const entry = entries.get(id);
      return entry === undefined ? [] : [{ entry, score }];
    });
  }

  async list(query: MemoryListQuery): Promise<MemoryEntry[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (query.subject !== undefined) where.push(`m.subject = ${param(query.subject)}`);
    if (query.search !== undefined && query.search !== "") {
      const search = param(query.search);
      where.push(`(strpos(m.content, ${search}) > 0 OR strpos(m.subject_name, ${search}) > 0)`);
    }
    if (query.beforeId !== undefined) {
      where.push(
        `(m.updated_at, m.id) < (SELECT updated_at, id FROM memories WHERE id = ${param(query.beforeId)})`,
      );
    }
    const rows = await this.#db.query<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories m
       ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`}
       ORDER BY m.updated_at DESC, m.id DESC LIMIT ${param(query.limit)}`,
      params,
    );
    return this.#withSources(this.#db, rows);
  }

  async count(): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>("SELECT COUNT(*) AS n FROM memories");
    return row?.n ?? 0;
  }

  async delete(ids: number[]): Promise<number> {
    return (await this.#db.transaction((tx) => deleteMemories(tx, ids))).length;
  }

  async forgetPerson(subject: MemorySubject, userId: string, sessionPrefix: string): Promise<number[]> {
    return this.#db.transaction(async (tx) => {
      const rows = await tx.query<{ id: number }>(
        `SELECT id FROM memories WHERE subject = $1
         UNION
         SELECT s.memory_id FROM memory_sources s
         WHERE s.user_id = $2 AND left(s.session_id, length($3::text)) = $3::text
           AND NOT EXISTS (
             SELECT 1 FROM memory_sources o WHERE o.memory_id = s.memory_id
               AND (o.user_id <> $2 OR left(o.session_id, length($3::text)) <> $3::text))
         ORDER BY 1`,
        [subject, userId, sessionPrefix],
      );
      const ids = rows.map((row) => row.id);
      await deleteMemories(tx, ids);
      return ids;
    });
  }

  async forgetMessage(sessionId: string, messageId: string): Promise<number[]> {
    return this.#db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO memory_deleted_messages (session_id, message_id) VALUES ($1, $2)
         ON CONFLICT DO NOTHING`,
        [sessionId, messageId],
      );
      const learned = await tx.query<{ memory_id: number }>(
        "DELETE FROM memory_sources WHERE session_id = $1 AND message_id = $2 RETURNING memory_id",
        [sessionId, messageId],
      );
      const orphans = await tx.query<{ id: number }>(
        `SELECT m.id FROM memories m WHERE m.id = ANY($1::bigint[])
           AND NOT EXISTS (SELECT 1 FROM memory_sources s WHERE s.memory_id = m.id)
         ORDER BY m.id`,
        [learned.map((row) => row.memory_id)],
      );
      return deleteMemories(
        tx,
        orphans.map((row) => row.id),
      );
    });
  }

  async deletedAmong(sessionId: string, messageIds: string[]): Promise<Set<string>> {
    const rows = await this.#db.query<{ message_id: string }>(
      `SELECT message_id FROM memory_deleted_messages
       WHERE session_id = $1 AND message_id = ANY($2::text[])`,
      [sessionId, messageIds],
    );
    return new Set(rows.map((row) => row.message_id));
  }

  async learnedUpTo(sessionId: string): Promise<number> {
    const [row] = await this.#db.query<{ row_id: number }>(
      "SELECT row_id FROM memory_progress WHERE session_id = $1",
      [sessionId],
    );
    return row?.row_id ?? 0;
  }

  async setLearnedUpTo(sessionId: string, rowId: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO memory_progress (session_id, row_id) VALUES ($1, $2)
       ON CONFLICT (session_id) DO UPDATE SET row_id = excluded.row_id`,
      [sessionId, rowId],
    );
  }

  async passesOn(sessionId: string, day: string): Promise<number> {
    const [row] = await this.#db.query<{ passes: number }>(
      "SELECT passes FROM memory_progress WHERE session_id = $1 AND day = $2",
      [sessionId, day],
    );
    return row?.passes ?? 0;
  }

  async countPass(sessionId: string, day: string): Promise<void> {
    await this.#db.query(
      `INSERT INTO memory_progress (session_id, row_id, day, passes) VALUES ($1, 0, $2, 1)
       ON CONFLICT (session_id) DO UPDATE SET
         passes = CASE WHEN memory_progress.day = excluded.day THEN memory_progress.passes + 1 ELSE 1 END,
         day = excluded.day`,
      [sessionId, day],
    );
  }

  async markForgotten(subject: MemorySubject, at: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO memory_forgotten (subject, at) VALUES ($1, $2)
       ON CONFLICT (subject) DO UPDATE SET at = GREATEST(memory_forgotten.at, excluded.at)`,
      [subject, at],
    );
  }

  async forgottenAt(subjects: MemorySubject[]): Promise<Map<MemorySubject, number>> {
    const rows = await this.#db.query<{ subject: MemorySubject; at: number }>(
      "SELECT subject, at FROM memory_forgotten WHERE subject = ANY($1::text[])",
      [subjects],
    );
    return new Map(rows.map((row) => [row.subject, row.at]));
  }

  async setVector(id: number, model: string, vector: Float32Array): Promise<void> {
    await this.#db.query("UPDATE memories SET vector = $1, vector_model = $2 WHERE id = $3", [
      encodeVector(vector),
      model,
      id,
    ]);
  }

  async vectors(ids: number[], model: string): Promise<Map<number, Float32Array>> {
    const rows = await this.#db.query<{ id: number; vector: Buffer }>(
      `SELECT id, vector FROM memories
       WHERE id = ANY($1::bigint[]) AND vector_model = $2 AND vector IS NOT NULL`,
      [ids, model],
    );
    return new Map(rows.map((row) => [row.id, decodeVector(row.vector)]));
  }

  async #read(db: PgQuery, id: number): Promise<MemoryEntry | undefined> {
    return (await this.#entries(db, [id])).get(id);
  }

  async #entries(db: PgQuery, ids: number[]): Promise<Map<number, MemoryEntry>> {
    if (ids.length === 0) return new Map();
    const rows = await db.query<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1::bigint[])`,
      [ids],
      "memory-entries",
    );
    const entries = await this.#withSources(db, rows);
    return new Map(entries.map((entry) => [entry.id, entry]));
  }

  /** The rows as entries, in the same order, each with its sources oldest first. */
  async #withSources(db: PgQuery, rows: MemoryRow[]): Promise<MemoryEntry[]> {
    if (rows.length === 0) return [];
    const sources = await db.query<SourceRow & { memory_id: number }>(
      `SELECT memory_id, session_id, message_id, user_id, time FROM memory_sources
       WHERE memory_id = ANY($1::bigint[]) ORDER BY time, id`,
      [rows.map((row) => row.id)],
      "memory-sources",
    );
    const byMemory = new Map<number, MemorySource[]>();
    for (const source of sources) {
      const list = byMemory.get(source.memory_id) ?? [];
      list.push(toMemorySource(source));
      byMemory.set(source.memory_id, list);
    }
    return rows.map((row) => toMemoryEntry(row, byMemory.get(row.id) ?? []));
  }
}

async function addSources(tx: PgQuery, id: number, sources: MemorySource[]): Promise<void> {
  if (sources.length === 0) return;
  await tx.query(
    `INSERT INTO memory_sources (memory_id, session_id, message_id, user_id, time)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[])
     ON CONFLICT DO NOTHING`,
    [
      id,
      sources.map((source) => source.sessionId),
      sources.map((source) => source.messageId),
      sources.map((source) => source.userId),
      sources.map((source) => source.time),
    ],
  );
}

/** Deletes memories (their sources go with them) and their terms from the statistics; resolves with the ids deleted. */
async function deleteMemories(tx: PgQuery, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const deleted = await tx.query<{ id: number; terms: string[] }>(
    "DELETE FROM memories WHERE id = ANY($1::bigint[]) RETURNING id, terms",
    [ids],
  );
  await reindex(
    tx,
    deleted.map((row) => row.terms),
    [],
  );
  return deleted.map((row) => row.id).sort((a, b) => a - b);
}
