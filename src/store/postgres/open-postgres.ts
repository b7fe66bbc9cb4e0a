import type { Logger } from "../../log/logger.ts";
import { assembleStores } from "../assemble-stores.ts";
import type { StoreOptions } from "../open-store.ts";
import type { Stores } from "../types.ts";
import { PgDatabase } from "./database.ts";
import { PgMonitorEventStore } from "./event-store.ts";
import { PgMemoryStore } from "./memory-store.ts";
import { pgRetentionSteps } from "./message-retention.ts";
import { PgMessageStore } from "./message-store.ts";
import { PgPictureStore } from "./picture-store.ts";
import { PgSendStore } from "./send-store.ts";
import { PgStickerStore } from "./sticker-store.ts";
import { PgTurnStore } from "./turn-store.ts";
import { PgUsageStore } from "./usage-store.ts";
import { PgWriteTick } from "./write-tick.ts";

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
  const tick = new PgWriteTick(db, logger, { spoolLimit: options.spoolLimit });
  let monitorEvents: PgMonitorEventStore;
  try {
    monitorEvents = await PgMonitorEventStore.open(db, options.monitorRetention, logger, tick);
  } catch (error) {
    await db.close();
    throw error;
  }
  const messages = new PgMessageStore(db, logger, tick, {
    expendable: (message) => !options.isTrigger(message),
  });
  const usage = new PgUsageStore(db, logger, tick);
  const turns = new PgTurnStore(db, logger, tick);
  const sends = new PgSendStore(db, logger, tick);
  return assembleStores(
    {
      messages,
      turns,
      sends,
      usage,
      monitorEvents,
      pictures: new PgPictureStore(db),
      stickers: new PgStickerStore(db),
      memories: new PgMemoryStore(db),
      status: () => tick.status(),
      retentionSteps: pgRetentionSteps(db),
      closeDatabase: async () => {
        await tick.close();
        await db.close();
      },
    },
    logger,
    options,
    { database: db.location },
  );
}
