import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { StoreOptions } from "../../src/store/store-options.ts";
import type { Stores } from "../../src/store/types.ts";
import { type CapturedLog, captureLog, groupMessage, makeTempDir, type TempDir } from "../support/store.ts";
import { waitFor } from "../support/wait.ts";

const SESSION = "onebot:10000:group:20000";

/** Resolves once `check` holds, polling; the store retries on timers of its own. */
describe("storage while the database cannot be written", () => {
  let dir: TempDir;
  let file: string;
  let log: CapturedLog;
  let stores: Stores;
  /** Another connection, as a backup or a `sqlite3` shell would hold one. */
  let other: BetterSqlite3.Database;

  const open = async (options: Partial<StoreOptions> = {}) => {
    stores = await openStore(`sqlite:${file}`, log.logger, {
      monitorRetention: () => ({ maxEvents: 10_000, maxAgeHours: 72 }),
      messageRetention: () => ({ days: 0, messagesPerSession: 0 }),
      spoolLimit: 1_000,
      isTrigger: () => false,
      ...options,
    });
    other = new BetterSqlite3(file);
  };
  const storedIds = () =>
    (other.prepare("SELECT message_id FROM messages ORDER BY id").all() as Array<{ message_id: string }>).map(
      (row) => row.message_id,
    );

  beforeEach(() => {
    dir = makeTempDir();
    file = join(dir.path, "tsumugi.db");
    log = captureLog();
  });

  afterEach(async () => {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    await stores.close();
    dir.remove();
  });

  it("spools writes while another connection holds the lock, stays fast, and writes them all once it is released", async () => {
    await open();
    stores.messages.append(groupMessage({ messageId: "before" }));
    await waitFor(() => storedIds().length === 1);
    other.exec("BEGIN EXCLUSIVE");

    const started = performance.now();
    for (let index = 0; index < 50; index++) {
      stores.messages.append(groupMessage({ messageId: `locked-${index}` }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // 50 turns that each met the lock: without spooling each waited out busy_timeout (5 s).
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(stores.status()).toMatchObject({
      state: "degraded",
      reason: "database is locked",
      spooled: 50,
      dropped: 0,
    });
    // The bot's own context still has every message.
    const recent = await stores.messages.recent({ sessionId: SESSION, limit: 3 });
    expect(recent.map((message) => message.messageId)).toEqual(["locked-47", "locked-48", "locked-49"]);
    expect((await stores.messages.findByMessageId(SESSION, "locked-0"))?.messageId).toBe("locked-0");
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 50, msg: expect.stringContaining("storage degraded") }),
    );

    other.exec("COMMIT");
    await waitFor(() => stores.status().state === "ok");
    expect(storedIds()).toEqual(["before", ...Array.from({ length: 50 }, (_, index) => `locked-${index}`)]);
    expect(stores.status()).toEqual({ state: "ok", spooled: 0, dropped: 0 });
    expect(log.lines).toContainEqual(
      expect.objectContaining({ msg: expect.stringContaining("storage recovered") }),
    );
  });

  it("when the spool is full drops the oldest untriggered messages first, counts them and says so", async () => {
    const triggered = (message: ChatMessage) => message.messageId.startsWith("mention");
    await open({ spoolLimit: 100, isTrigger: triggered });
    other.exec("BEGIN EXCLUSIVE");
    stores.messages.append(groupMessage({ messageId: "mention-first" }));
    for (let index = 0; index < 150; index++)
      stores.messages.append(groupMessage({ messageId: `chatter-${index}` }));
    stores.messages.append(groupMessage({ messageId: "mention-last" }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stores.status()).toMatchObject({ state: "degraded", spooled: 100, dropped: 52 });
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        dropped: expect.any(Number),
        msg: expect.stringContaining("spool full"),
      }),
    );

    other.exec("COMMIT");
    await waitFor(() => stores.status().state === "ok");
    const ids = storedIds();
    expect(ids).toHaveLength(100);
    expect(ids[0]).toBe("mention-first");
    expect(ids.at(-1)).toBe("mention-last");
    // The survivors are the newest chatter.
    expect(ids[1]).toBe("chatter-52");
  });

  it("writes what is spooled at close once the lock is released within the close grace", async () => {
    await open();
    other.exec("BEGIN EXCLUSIVE");
    stores.messages.append(groupMessage({ messageId: "spooled" }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stores.status().state).toBe("degraded");
    other.exec("COMMIT");
    await stores.close();
    expect(storedIds()).toEqual(["spooled"]);
  });
});
