/**
 * The database locked by another process while messages arrive (storage that
 * degrades, never drops): a `sqlite3` shell or a backup holding the write lock. The bot keeps
 * every message in memory, `/healthz` answers at once and says `degraded`, and once the lock
 * is released everything accepted meanwhile is in the database.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthReport } from "../../src/server/health-report.ts";
import type { StorageStatus } from "../../src/store/types.ts";
import { health, storedMessages } from "../support/bot-api.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { GROUP, plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { waitFor } from "../support/wait.ts";

const LOCKED_MESSAGES = 30;

/** Another process: opens the file, takes the write lock, says so, and commits when told. */
const LOCKER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec("BEGIN EXCLUSIVE");
process.stdout.write("locked\\n");
process.stdin.once("data", () => { db.exec("COMMIT"); db.close(); process.exit(0); });
`;

describe("the database locked by another process", () => {
  let qq: OneBotStandIn;
  let bot: BotProcess;
  let locker: ChildProcess | undefined;
  const healthTimes: number[] = [];
  let degraded: HealthReport;
  let recovered: HealthReport;
  const sent: string[] = [];

  /** `/healthz`, timed: it must answer at once however the database is. */
  const timedHealth = async (): Promise<HealthReport> => {
    const started = performance.now();
    const report = await health(bot);
    healthTimes.push(performance.now() - started);
    return report;
  };
  const storageIs = (state: StorageStatus["state"], spooled = 0) =>
    waitFor(
      async () => {
        const { storage } = await health(bot);
        return storage.state === state && storage.spooled >= spooled;
      },
      10_000,
      `storage ${state}`,
    );
  const push = (text: string) => {
    const id = qq.pushGroupMessage({ groupId: GROUP, userId: "30001", message: plain(text) });
    sent.push(id);
    return id;
  };

  beforeAll(async () => {
    qq = new OneBotStandIn({ selfId: SELF });
    bot = await startBotProcess();
    await qq.connectReverse(bot.wsUrl);
    push("锁之前");
    await waitFor(
      async () => (await storedMessages(bot, "锁之前")).length === 1,
      10_000,
      "the first message stored",
    );

    locker = spawn(
      process.execPath,
      [
        "-e",
        LOCKER,
        createRequire(import.meta.url).resolve("better-sqlite3"),
        join(bot.dataDir, "tsumugi.db"),
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    await once(locker.stdout!, "data");
    for (let index = 0; index < LOCKED_MESSAGES; index++) push(`锁住时的第${index}条`);
    await storageIs("degraded", LOCKED_MESSAGES);
    for (let sample = 0; sample < 5; sample++) degraded = await timedHealth();

    locker.stdin!.write("release\n");
    await once(locker, "exit");
    await storageIs("ok");
    recovered = await timedHealth();
  }, 60_000);

  afterAll(async () => {
    locker?.kill("SIGKILL");
    await bot?.dispose();
    await qq?.close();
  });

  it("answers /healthz at once with storage degraded and the reason while locked", () => {
    expect(degraded.status).toBe("ok");
    expect(degraded.storage).toMatchObject({ state: "degraded", reason: "database is locked", dropped: 0 });
    expect(degraded.storage.spooled).toBeGreaterThanOrEqual(LOCKED_MESSAGES);
    // Before, each request waited out busy_timeout (5 s) on the event loop. The first request
    // also opens the connection, so the median is what is held to 50 ms.
    const sorted = [...healthTimes].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(50);
    expect(sorted.at(-1)).toBeLessThan(500);
  });

  it("reports ok again once the lock is released", () => {
    expect(recovered.storage).toEqual({ state: "ok", spooled: 0, dropped: 0 });
  });

  it("has every message accepted while locked in the database afterwards", async () => {
    await bot.kill("SIGTERM");
    const db = new Database(join(bot.dataDir, "tsumugi.db"), { readonly: true });
    try {
      const rows = db.prepare("SELECT message_id FROM messages ORDER BY id").all() as Array<{
        message_id: string;
      }>;
      expect(rows.map((row) => row.message_id)).toEqual(sent);
      expect(db.prepare("SELECT COUNT(*) AS n FROM quarantine").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});
