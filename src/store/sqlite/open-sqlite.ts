import type { Logger } from "../../log/logger.ts";
import { assembleStores } from "../assemble-stores.ts";
import { type Settlement, SqlSendStore, settlementWrites } from "../sql/send-store.ts";
import { SqlTurnStore, type TurnStart, turnWrites } from "../sql/turn-store.ts";
import { SqlUsageStore, usageWrites } from "../sql/usage-store.ts";
import type { StoreOptions } from "../store-options.ts";
import type { Stores, TurnRecord, UsageRecord } from "../types.ts";
import { BatchWriter } from "./batch-writer.ts";
import { IN_MEMORY, openSqliteDatabase } from "./database.ts";
import { SqliteMonitorEventStore } from "./event-store.ts";
import { lockDatabase } from "./instance-lock.ts";
import { SqliteKnowledgeStore } from "./knowledge-store.ts";
import { SqliteMemoryStore } from "./memory-store.ts";
import { sqliteRetentionSteps } from "./message-retention.ts";
import { SqliteMessageStore } from "./message-store.ts";
import { SqliteSql } from "./sqlite-sql.ts";
import { WriteTick } from "./write-tick.ts";

/**
 * Opens the stores on the SQLite database `file` (an absolute path or `:memory:`). They answer
 * within the call (the driver is synchronous): their Promises are already settled, so awaiting
 * them costs no extra event-loop turn.
 */
export function openSqliteStores(file: string, logger: Logger, options: StoreOptions): Stores {
  // Taken before the migrations: a second bot changes nothing in a file another one runs on.
  const lock =
    file === IN_MEMORY
      ? undefined
      : lockDatabase(file, options.port === undefined ? {} : { port: options.port });
  let db: ReturnType<typeof openSqliteDatabase>;
  try {
    db = openSqliteDatabase(file, logger);
  } catch (error) {
    lock?.release();
    throw error;
  }
  const sql = new SqliteSql(db);
  const tick = new WriteTick(db, logger, { spoolLimit: options.spoolLimit });
  const messages = new SqliteMessageStore(db, logger, tick, {
    expendable: (message) => !options.isTrigger(message),
  });
  const usage = new SqlUsageStore(
    sql,
    new BatchWriter<UsageRecord>({ name: "llm_usage", writeBatch: sql.batch(usageWrites), logger, tick }),
  );
  const turnQueue = new BatchWriter<TurnRecord>({
    name: "turns",
    writeBatch: sql.batch(turnWrites),
    logger,
    tick,
  });
  const turns = new SqlTurnStore(sql, turnQueue, sqliteTurnStart(sql, turnQueue));
  const sends = new SqlSendStore(
    sql,
    new BatchWriter<Settlement>({ name: "sends", writeBatch: sql.batch(settlementWrites), logger, tick }),
  );
  const monitorEvents = new SqliteMonitorEventStore(db, options.monitorRetention, logger, tick);
  return assembleStores(
    {
      sql,
      messages,
      turns,
      sends,
      usage,
      monitorEvents,
      memories: new SqliteMemoryStore(db),
      knowledge: new SqliteKnowledgeStore(db),
      status: () => tick.status(),
      retentionSteps: sqliteRetentionSteps(db),
      closeDatabase: () => {
        tick.close();
        db.close();
        lock?.release();
      },
    },
    logger,
    options,
    { file },
  );
}

/**
 * A turn's start is committed with everything queued (the trigger messages among it), in one
 * transaction: a running turn on disk can always be run again from its stored messages. One
 * instance has no lease to fence: the token is ignored and there is nothing to record.
 */
function sqliteTurnStart(sql: SqliteSql, queue: BatchWriter<TurnRecord>): TurnStart {
  const writeTurn = sql.batch(turnWrites);
  return {
    async begin(turn) {
      queue.flushWith(() => writeTurn([turn]));
    },
    async advanceFence() {},
  };
}
