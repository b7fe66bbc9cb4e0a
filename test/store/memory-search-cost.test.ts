import { join } from "node:path";
import type { Statement } from "better-sqlite3";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { personSubject } from "../../src/memory/types.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { SqliteMemoryStore } from "../../src/store/sqlite/memory-store.ts";
import { captureLog, makeTempDir, type TempDir } from "../support/store.ts";

const ZHANG = personSubject("onebot", "10001");
const SESSION = "onebot:group:20000";

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => {
  vi.restoreAllMocks();
  dir.remove();
});

/** The SQL texts the store's statements run while `work` runs. */
async function statementsRun(db: ReturnType<typeof openSqliteDatabase>, work: () => Promise<unknown>) {
  const statement = Object.getPrototypeOf(db.prepare("SELECT 1")) as Statement;
  const ran: string[] = [];
  for (const method of ["all", "get", "iterate"] as const) {
    const original = statement[method] as (...args: unknown[]) => unknown;
    vi.spyOn(statement, method).mockImplementation(function (this: Statement, ...args: unknown[]) {
      ran.push(this.source);
      return original.apply(this, args);
    } as never);
  }
  await work();
  vi.restoreAllMocks();
  return ran;
}

it("searches a store that remembers nothing without a full-text query, and finds a fact once one is remembered", async () => {
  const db = openSqliteDatabase(join(dir.path, "tsumugi.db"), captureLog().logger);
  const memories = new SqliteMemoryStore(db);
  // What every turn's recall asks: facts about its sender matching what they said, and their others.
  const turnSearches = () =>
    Promise.all([
      memories.search({ query: "下周去成都出差吗", subjects: [ZHANG], limit: 10 }),
      memories.search({ subjects: [ZHANG], limit: 5 }),
    ]);

  let hits: Awaited<ReturnType<typeof turnSearches>> = [[], []];
  const ran = await statementsRun(db, async () => {
    hits = await turnSearches();
  });
  expect(hits).toEqual([[], []]);
  expect(ran.filter((sql) => /MATCH|json_each/.test(sql))).toEqual([]);

  await memories.add({
    subject: ZHANG,
    subjectName: "张三",
    content: "下周二要去成都出差",
    origin: "learned",
    sessionId: SESSION,
    sources: [{ sessionId: SESSION, messageId: "m1", userId: "10001", time: Date.now() }],
    at: Date.now(),
  });
  const [matching, theirs] = await turnSearches();
  expect(matching.map((hit) => hit.entry.content)).toEqual(["下周二要去成都出差"]);
  expect(theirs.map((hit) => hit.entry.content)).toEqual(["下周二要去成都出差"]);
  db.close();
});
