import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.ts";
import type { TurnRecord } from "../../src/store/types.ts";
import { captureLog, makeTempDir } from "../support/store.ts";

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

      const stores = await openStore(`sqlite:${file}`, captureLog().logger);
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
