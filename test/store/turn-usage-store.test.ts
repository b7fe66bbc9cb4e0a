import { join } from "node:path";
import type { Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { SqliteTurnStore } from "../../src/store/sqlite/turn-store.ts";
import { SqliteUsageStore } from "../../src/store/sqlite/usage-store.ts";
import type { TurnRecord, UsageRecord } from "../../src/store/types.ts";
import { captureLog, makeTempDir, type TempDir, tickOf } from "../support/store.ts";

const SESSION = "onebot:10000:group:20000";

function turn(overrides: Partial<TurnRecord> = {}): TurnRecord {
  return {
    replyId: "r1",
    sessionId: SESSION,
    status: "replied",
    triggerMessageIds: ["7318462934586791234", "-42"],
    createdAt: 1_700_000_000_000,
    finishedAt: 1_700_000_001_500,
    ...overrides,
  };
}

function usage(overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    time: Date.UTC(2025, 4, 1, 10),
    task: "planner",
    provider: "main",
    model: "deepseek-chat",
    promptTokens: 1000,
    completionTokens: 50,
    latencyMs: 800,
    success: true,
    ...overrides,
  };
}

describe("turn and usage stores", () => {
  let dir: TempDir;
  let db: Database;

  beforeEach(() => {
    dir = makeTempDir();
    db = openSqliteDatabase(join(dir.path, "tsumugi.db"), captureLog().logger);
  });

  afterEach(() => {
    db.close();
    dir.remove();
  });

  it("round-trips turn records, with and without optional fields", async () => {
    const turns = new SqliteTurnStore(db, captureLog().logger, tickOf(db));
    const full = turn({
      status: "silent",
      reason: "nobody asked me",
      detail: { rounds: [{ tool: "no_reply", args: { reason: "x" } }], tokens: 1234 },
    });
    const bare = turn({ replyId: "r2", status: "failed" });
    await turns.record(full);
    await turns.record(bare);

    expect(await turns.get("r1")).toStrictEqual(full);
    expect(await turns.get("r2")).toStrictEqual(bare);
    expect(await turns.get("missing")).toBeUndefined();
  });

  it("replaces a turn recorded again under the same reply id", async () => {
    const turns = new SqliteTurnStore(db, captureLog().logger, tickOf(db));
    await turns.record(turn({ status: "failed", reason: "timeout" }));
    await turns.record(turn({ status: "replied" }));

    expect(await turns.get("r1")).toStrictEqual(turn({ status: "replied" }));
    expect(await turns.listBySession(SESSION, 10)).toHaveLength(1);
  });

  it("lists a session's newest turns first, limited, without other sessions", async () => {
    const turns = new SqliteTurnStore(db, captureLog().logger, tickOf(db));
    for (let index = 0; index < 5; index++) {
      await turns.record(turn({ replyId: `a${index}`, createdAt: 1000 + index }));
      await turns.record(
        turn({ replyId: `b${index}`, sessionId: "onebot:10000:private:1", createdAt: 1000 + index }),
      );
    }

    expect((await turns.listBySession(SESSION, 3)).map((record) => record.replyId)).toEqual([
      "a4",
      "a3",
      "a2",
    ]);
    expect(await turns.listBySession("onebot:10000:private:1", 10)).toHaveLength(5);
    expect(await turns.listBySession("onebot:10000:group:404", 10)).toEqual([]);
  });

  it("summarizes usage per UTC day, task and model, counting failures, since a time", async () => {
    const usageStore = new SqliteUsageStore(db, captureLog().logger, tickOf(db));
    usageStore.record(usage({ time: Date.UTC(2025, 3, 30, 23), promptTokens: 1 })); // before sinceMs
    usageStore.record(usage({ latencyMs: 600.4, replyId: "r1" }));
    usageStore.record(usage({ time: Date.UTC(2025, 4, 1, 23, 59), latencyMs: 1000 }));
    usageStore.record(
      usage({ success: false, error: "HTTP 429", promptTokens: 0, completionTokens: 0, latencyMs: 200 }),
    );
    usageStore.record(
      usage({ task: "replyer", model: "deepseek-reasoner", promptTokens: 300, completionTokens: 30 }),
    );
    usageStore.record(usage({ time: Date.UTC(2025, 4, 2, 0, 0, 1), promptTokens: 7, completionTokens: 3 }));

    expect(await usageStore.summarize({ sinceMs: Date.UTC(2025, 4, 1) })).toEqual([
      {
        day: "2025-05-01",
        task: "planner",
        provider: "main",
        model: "deepseek-chat",
        calls: 3,
        failures: 1,
        promptTokens: 2000,
        completionTokens: 100,
        averageLatencyMs: 600,
      },
      {
        day: "2025-05-01",
        task: "replyer",
        provider: "main",
        model: "deepseek-reasoner",
        calls: 1,
        failures: 0,
        promptTokens: 300,
        completionTokens: 30,
        averageLatencyMs: 800,
      },
      {
        day: "2025-05-02",
        task: "planner",
        provider: "main",
        model: "deepseek-chat",
        calls: 1,
        failures: 0,
        promptTokens: 7,
        completionTokens: 3,
        averageLatencyMs: 800,
      },
    ]);
    expect(await usageStore.summarize({ sinceMs: Date.UTC(2025, 5, 1) })).toEqual([]);
  });

  it("stores each usage record's error and reply id", async () => {
    const usageStore = new SqliteUsageStore(db, captureLog().logger, tickOf(db));
    usageStore.record(usage({ success: false, error: "HTTP 429", replyId: "r9" }));
    usageStore.record(usage());
    await usageStore.close();

    const rows = db.prepare("SELECT success, error, reply_id FROM llm_usage ORDER BY id").all();
    expect(rows).toEqual([
      { success: 0, error: "HTTP 429", reply_id: "r9" },
      { success: 1, error: null, reply_id: null },
    ]);
    expect(() => usageStore.record(usage())).toThrow("llm_usage store is closed");
  });

  it("sums the tokens of each chat since a time, for daily budgets", async () => {
    const usageStore = new SqliteUsageStore(db, captureLog().logger, tickOf(db));
    const other = "onebot:10000:group:20001";
    usageStore.record(usage({ time: Date.UTC(2025, 4, 1, 9), sessionId: SESSION })); // before sinceMs
    usageStore.record(usage({ sessionId: SESSION }));
    usageStore.record(usage({ sessionId: SESSION, promptTokens: 5, completionTokens: 5 }));
    usageStore.record(usage({ sessionId: other, success: false, promptTokens: 0, completionTokens: 0 }));
    usageStore.record(usage({ promptTokens: 20, completionTokens: 2 })); // a console model test

    const rows = await usageStore.tokensBySession({ sinceMs: Date.UTC(2025, 4, 1, 10) });
    expect(rows.sort((a, b) => String(a.sessionId).localeCompare(String(b.sessionId)))).toEqual([
      { sessionId: null, tokens: 22 },
      { sessionId: SESSION, tokens: 1060 },
      { sessionId: other, tokens: 0 },
    ]);
  });
});
