import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.ts";
import type { Stores, TurnRecord } from "../../src/store/types.ts";
import { captureLog, groupMessage, makeTempDir, type TempDir } from "../support/store.ts";

const SESSION = "onebot:10000:group:20000";

function running(overrides: Partial<TurnRecord> = {}): TurnRecord {
  return {
    replyId: "r1",
    sessionId: SESSION,
    status: "running",
    kind: "realtime",
    triggerMessageIds: ["7318462934586791234"],
    messageIds: ["-42", "7318462934586791234"],
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}

describe("durable turns and the send journal", () => {
  let dir: TempDir;
  let file: string;
  let stores: Stores;
  /** Another connection, as a process reading the file after a crash would see it. */
  let reader: Database.Database;

  beforeEach(() => {
    dir = makeTempDir();
    file = join(dir.path, "tsumugi.db");
    stores = openStore(`sqlite:${file}`, captureLog().logger);
    reader = new Database(file, { readonly: true });
  });

  afterEach(async () => {
    reader.close();
    await stores.close();
    dir.remove();
  });

  const onDisk = (sql: string, ...params: unknown[]) => reader.prepare(sql).all(...params);

  it("commits a running turn at once, with the trigger messages queued before it", async () => {
    stores.messages.append(groupMessage({ messageId: "7318462934586791234" }));
    await stores.turns.begin(running());
    // No event-loop turn has passed: only an explicit commit can have put these on disk.
    expect(onDisk("SELECT message_id FROM messages")).toEqual([{ message_id: "7318462934586791234" }]);
    expect(onDisk("SELECT reply_id, status, finished_at FROM turns")).toEqual([
      { reply_id: "r1", status: "running", finished_at: null },
    ]);
    expect(await stores.turns.running()).toStrictEqual([running()]);
  });

  it("replaces the running record with the outcome and lists only turns still running", async () => {
    await stores.turns.begin(running());
    await stores.turns.begin(running({ replyId: "r2", createdAt: 1_700_000_000_500 }));
    await stores.turns.record({
      ...running(),
      status: "replied",
      reason: "replied to -42",
      finishedAt: 1_700_000_001_000,
    });
    expect((await stores.turns.running()).map((turn) => turn.replyId)).toEqual(["r2"]);
    expect(await stores.turns.get("r1")).toMatchObject({ status: "replied", finishedAt: 1_700_000_001_000 });
  });

  it("marks the interrupted turn in the same commit as the turn that runs it again", async () => {
    await stores.turns.begin(running({ replyId: "old" }));
    await stores.turns.begin(running({ replyId: "new", recoveredFrom: "old", createdAt: 1_700_000_100_000 }));
    expect(
      onDisk("SELECT reply_id, status, reason, finished_at, recovered_from FROM turns ORDER BY created_at"),
    ).toEqual([
      {
        reply_id: "old",
        status: "interrupted",
        reason: "interrupted by a restart; run again as turn new",
        finished_at: 1_700_000_100_000,
        recovered_from: null,
      },
      { reply_id: "new", status: "running", reason: null, finished_at: null, recovered_from: "old" },
    ]);
  });

  it("commits a pending send before it leaves and settles it afterwards", async () => {
    const send = {
      replyId: "r1",
      sessionId: SESSION,
      target: "qq:10000:group:20000",
      contentHash: "ab",
      summary: "好",
    };
    const first = await stores.sends.pending(send);
    const second = await stores.sends.pending(send);
    expect(onDisk("SELECT id, state FROM sends ORDER BY id")).toEqual([
      { id: first, state: "pending" },
      { id: second, state: "pending" },
    ]);
    await stores.sends.sent(first, "100001");
    await stores.sends.settleFailed(second, "in_doubt", "send_group_msg not completed: connection closed");
    await new Promise((resolve) => setImmediate(resolve));
    expect(onDisk("SELECT state, platform_message_id, error FROM sends ORDER BY id")).toEqual([
      { state: "sent", platform_message_id: "100001", error: null },
      {
        state: "in_doubt",
        platform_message_id: null,
        error: "send_group_msg not completed: connection closed",
      },
    ]);
    expect((await stores.sends.forReply("r1")).map((entry) => entry.state)).toEqual(["sent", "in_doubt"]);
    expect(await stores.sends.forReply("other")).toEqual([]);
  });
});

describe("migration 4", () => {
  it("keeps the turns recorded before it and accepts running and interrupted turns", async () => {
    const dir = makeTempDir();
    try {
      const file = join(dir.path, "tsumugi.db");
      const old = openSqliteDatabase(
        file,
        captureLog().logger,
        MIGRATIONS.filter((migration) => migration.version < 4),
      );
      old
        .prepare(
          `INSERT INTO turns (reply_id, session_id, status, reason, trigger_message_ids, created_at, finished_at, detail)
           VALUES ('r0', ?, 'replied', 'replied to 1', '["1"]', 1000, 2000, '{"rounds":[]}')`,
        )
        .run(SESSION);
      expect(() => old.prepare("UPDATE turns SET status = 'running' WHERE reply_id = 'r0'").run()).toThrow(
        /CHECK constraint/,
      );
      old.close();

      const stores = openStore(`sqlite:${file}`, captureLog().logger);
      try {
        expect(await stores.turns.get("r0")).toStrictEqual({
          replyId: "r0",
          sessionId: SESSION,
          status: "replied",
          reason: "replied to 1",
          triggerMessageIds: ["1"],
          createdAt: 1000,
          finishedAt: 2000,
          detail: { rounds: [] },
        });
        await stores.turns.begin(running({ replyId: "r1" }));
        await stores.turns.record({
          ...running({ replyId: "r1" }),
          status: "interrupted",
          reason: "x",
          finishedAt: 3,
        });
        expect((await stores.turns.get("r1"))?.status).toBe("interrupted");
        expect(await stores.turns.listBySession(SESSION, 10)).toHaveLength(2);
      } finally {
        await stores.close();
      }
    } finally {
      dir.remove();
    }
  });
});
