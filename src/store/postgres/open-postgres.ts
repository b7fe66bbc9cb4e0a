import type { Logger } from "../../log/logger.ts";
import { assembleStores } from "../assemble-stores.ts";
import { SqlSendStore } from "../sql/send-store.ts";
import { SqlTurnStore } from "../sql/turn-store.ts";
import { SqlUsageStore } from "../sql/usage-store.ts";
import type { StoreOptions } from "../store-options.ts";
import type { Stores } from "../types.ts";
import {
  pgFencedPending,
  pgSettlementQueue,
  pgTurnQueue,
  pgTurnStart,
  pgUsageQueue,
} from "./batched-writes.ts";
import { PgDatabase } from "./database.ts";
import { PgMonitorEventStore } from "./event-store.ts";
import { PgKnowledgeStore } from "./knowledge-store.ts";
import { PgMemoryStore } from "./memory-store.ts";
import { pgRetentionSteps } from "./message-retention.ts";
import { PgMessageStore } from "./message-store.ts";
import { PgSql } from "./pg-sql.ts";
import { combinedStatus, PgWriteTick } from "./write-tick.ts";

/**
 * Opens the stores on the PostgreSQL database at `url` (`postgres://` or `postgresql://`),
 * applying pending migrations, and starts pruning messages beyond the retention. Loaded only
 * for such a URL, so a SQLite bot never loads the driver.
 */
export async function openPostgresStores(
  url: string,
  logger: Logger,
  options: StoreOptions,
): Promise<Stores> {
  const db = await PgDatabase.open(url, logger);
  const sql = new PgSql(db);
  const tick = new PgWriteTick(db, logger, { spoolLimit: options.spoolLimit });
  // Monitor events commit beside the turns' writes, never in front of them: a batch of whole
  // prompts in flight would otherwise hold up the next turn's start. They share no table.
  const eventTick = new PgWriteTick(db, logger, { spoolLimit: options.spoolLimit });
  let monitorEvents: PgMonitorEventStore;
  let knowledge: PgKnowledgeStore;
  try {
    monitorEvents = await PgMonitorEventStore.open(db, options.monitorRetention, logger, eventTick);
    knowledge = await PgKnowledgeStore.open(db, logger);
  } catch (error) {
    await db.close();
    throw error;
  }
  const messages = new PgMessageStore(db, logger, tick, {
    expendable: (message) => !options.isTrigger(message),
  });
  const usage = new SqlUsageStore(sql, pgUsageQueue(logger, tick));
  const turns = new SqlTurnStore(sql, pgTurnQueue(logger, tick), pgTurnStart(db, tick));
  const sends = new SqlSendStore(sql, pgSettlementQueue(logger, tick), pgFencedPending(db));
  return assembleStores(
    {
      sql,
      messages,
      turns,
      sends,
      usage,
      monitorEvents,
      memories: new PgMemoryStore(db),
      knowledge,
      status: () => combinedStatus(tick.status(), eventTick.status()),
      retentionSteps: pgRetentionSteps(db),
      closeDatabase: async () => {
        await Promise.all([tick.close(), eventTick.close()]);
        await db.close();
      },
    },
    logger,
    options,
    { database: db.location },
  );
}
