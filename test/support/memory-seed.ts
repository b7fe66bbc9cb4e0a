import { createLogger } from "../../src/log/logger.ts";
import type {
  MemoryEntry,
  MemorySource,
  MemoryStore,
  MemorySubject,
  NewMemory,
} from "../../src/memory/types.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { isPostgresUrl, sqliteFileOf } from "../../src/store/open-store.ts";
import { PgDatabase } from "../../src/store/postgres/database.ts";
import { PgMemoryStore } from "../../src/store/postgres/memory-store.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { SqliteMemoryStore } from "../../src/store/sqlite/memory-store.ts";
import { storageUrlOf } from "./bot-harness.ts";

/** A memory to seed: about `subject`, learned from `from` (stored messages) at `at`. */
export interface SeedMemory {
  subject: MemorySubject;
  subjectName: string;
  content: string;
  from?: Array<Pick<ChatMessage, "sessionId" | "messageId" | "userId" | "time">>;
  origin?: NewMemory["origin"];
  at?: number;
}

/**
 * Writes memories into a bot's database (the harness's: SQLite in `dataDir`, or PostgreSQL in
 * the `postgres` project, see storageUrlOf) through a connection of its own, as the learner
 * would have written them, in the order given.
 */
export function seedMemories(dataDir: string, memories: SeedMemory[]): Promise<MemoryEntry[]> {
  return withMemoryStore(dataDir, async (store) => {
    const added: MemoryEntry[] = [];
    for (const memory of memories) {
      const sources: MemorySource[] = (memory.from ?? []).map(({ sessionId, messageId, userId, time }) => ({
        sessionId,
        messageId,
        userId,
        time,
      }));
      added.push(
        await store.add({
          subject: memory.subject,
          subjectName: memory.subjectName,
          content: memory.content,
          origin: memory.origin ?? "learned",
          sessionId: sources[0]?.sessionId ?? "onebot:10000:group:20000",
          sources,
          at: memory.at ?? Date.now(),
        }),
      );
    }
    return added;
  });
}

/** When `subject` last asked to be forgotten, as the bot's database says. */
export function forgottenAt(dataDir: string, subject: MemorySubject): Promise<number | undefined> {
  return withMemoryStore(dataDir, async (store) => (await store.forgottenAt([subject])).get(subject));
}

/** A memory store on the bot's own database (storageUrlOf), through a connection of its own. */
async function withMemoryStore<T>(dataDir: string, use: (store: MemoryStore) => Promise<T>): Promise<T> {
  const url = await storageUrlOf(dataDir);
  const logger = createLogger({ level: "silent" });
  if (isPostgresUrl(url)) {
    const db = await PgDatabase.open(url, logger);
    try {
      return await use(new PgMemoryStore(db));
    } finally {
      await db.close();
    }
  }
  const db = openSqliteDatabase(sqliteFileOf(url), logger);
  // The running bot may be writing: wait for its lock instead of failing at once.
  db.pragma("busy_timeout = 2000");
  try {
    return await use(new SqliteMemoryStore(db));
  } finally {
    db.close();
  }
}
