import { join } from "node:path";
import { beforeEach, expect, it, onTestFinished } from "vitest";
import { groupSubject, type NewMemory, personSubject } from "../../../src/memory/types.ts";
import type { MemoryStore } from "../../../src/store/memory-types.ts";
import { PgDatabase } from "../../../src/store/postgres/database.ts";
import { PG_MIGRATIONS } from "../../../src/store/postgres/migrations.ts";
import { openSqliteDatabase } from "../../../src/store/sqlite/database.ts";
import { MIGRATIONS } from "../../../src/store/sqlite/migrations.ts";
import type { Stores } from "../../../src/store/types.ts";
import { freshPostgresUrl } from "../../support/postgres-server.ts";
import { captureLog, makeTempDir } from "../../support/store.ts";
import { type BackendName, forEachBackend } from "./backends.ts";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 5, 1);
const ZHANG = personSubject("onebot", "10001");
const LI = personSubject("onebot", "10002");
const GROUP_A = groupSubject("onebot", "20000");
const GROUP_B = groupSubject("onebot", "20001");
const SESSION_A = "onebot:group:20000";

function memory(overrides: Partial<NewMemory> & Pick<NewMemory, "content">): NewMemory {
  return {
    subject: ZHANG,
    subjectName: "张三",
    origin: "learned",
    sessionId: SESSION_A,
    sources: [{ sessionId: SESSION_A, messageId: "m1", userId: "10001", time: NOW }],
    at: NOW,
    ...overrides,
  };
}

forEachBackend((backend) => {
  let stores: Stores;
  let memories: MemoryStore;
  /** Closes the stores and opens the same database again, as a restart would. */
  const reopen = async () => {
    const url = backend.urlOf(stores);
    await stores.close();
    stores = await backend.open(url);
    memories = stores.memories;
  };

  beforeEach(async () => {
    stores = await backend.open();
    memories = stores.memories;
  });

  it("recalls a Chinese fact by a question sharing a two-character word, or by the word alone", async () => {
    const trip = await memories.add(memory({ content: "下周二要去成都出差" }));
    await memories.add(memory({ content: "喜欢吃火锅，不吃香菜", sources: [] }));
    await memories.add(memory({ subject: LI, subjectName: "李四", content: "讨厌被 @ 叫醒" }));
    await reopen();

    for (const query of ["我下周去哪里", "成都"]) {
      const hits = await memories.search({ query, limit: 5, now: NOW });
      expect(
        hits.map((hit) => hit.entry.content),
        query,
      ).toEqual(["下周二要去成都出差"]);
    }
    // 张三 matches both of his memories by name; 出差 puts the trip first.
    const mixed = await memories.search({ query: "张三 business trip 出差吗", limit: 5, now: NOW });
    expect(mixed.map((hit) => hit.entry.content)).toEqual(["下周二要去成都出差", "喜欢吃火锅，不吃香菜"]);
    const [hit] = await memories.search({ query: "成都", limit: 5, now: NOW });
    expect(hit?.entry).toEqual({ ...trip, sources: trip.sources });
    expect(hit?.entry.sources).toEqual([
      { sessionId: SESSION_A, messageId: "m1", userId: "10001", time: NOW },
    ]);
    // The subject's name is indexed too; a query with no term matches nothing.
    expect(
      (await memories.search({ query: "李四", limit: 5, now: NOW })).map((h) => h.entry.content),
    ).toEqual(["讨厌被 @ 叫醒"]);
    expect(await memories.search({ query: "？！…", limit: 5, now: NOW })).toEqual([]);
  });

  it("ranks a recent, often confirmed fact above an old fact learned once", async () => {
    const old = await memories.add(memory({ content: "周末去成都看熊猫", at: NOW - 120 * DAY }));
    const fresh = await memories.add(memory({ content: "周末在成都吃火锅", at: NOW - 5 * DAY }));
    for (const day of [4, 3, 2]) await memories.update(fresh.id, { confirmedAt: NOW - day * DAY });

    const hits = await memories.search({ query: "成都周末", limit: 5, now: NOW });
    expect(hits.map((hit) => hit.entry.id)).toEqual([fresh.id, old.id]);
    expect(hits[0]?.entry.confirmations).toBe(4);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score * 10);

    // Without a query the same ranking orders a subject's memories.
    const bySubject = await memories.search({ subjects: [ZHANG], limit: 5, now: NOW });
    expect(bySubject.map((hit) => hit.entry.id)).toEqual([fresh.id, old.id]);
  });

  it("ranks the memory holding the query's rarer and more repeated terms first", async () => {
    // Every memory is about 张三 (his name is a term of each); 熊猫 is in one of them only.
    const panda = await memories.add(memory({ content: "喜欢熊猫，熊猫玩偶收集了很多" }));
    const other = await memories.add(memory({ content: "喜欢成都的天气" }));
    await memories.add(memory({ content: "下周去重庆" }));

    const hits = await memories.search({ query: "张三喜欢熊猫吗", limit: 5, now: NOW });
    expect(hits.map((hit) => hit.entry.id).slice(0, 2)).toEqual([panda.id, other.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);

    // Deleting the panda memory takes its terms out of the statistics: 熊猫 matches nothing.
    await memories.delete([panda.id]);
    expect(await memories.search({ query: "熊猫", limit: 5, now: NOW })).toEqual([]);
  });

  it("returns only the subjects asked for, never those excluded by prefix", async () => {
    await memories.add(memory({ content: "张三下周去成都" }));
    await memories.add(memory({ subject: LI, subjectName: "李四", content: "李四下周也去成都" }));
    await memories.add(memory({ subject: GROUP_A, subjectName: "A 群", content: "A 群下周在成都聚会" }));
    await memories.add(memory({ subject: GROUP_B, subjectName: "B 群", content: "B 群下周去成都开黑" }));
    const found = async (search: Parameters<MemoryStore["search"]>[0]) =>
      (await memories.search(search)).map((hit) => hit.entry.subject).sort();

    expect(await found({ query: "成都", limit: 10 })).toEqual([GROUP_A, GROUP_B, ZHANG, LI].sort());
    expect(await found({ query: "成都", subjects: [ZHANG, GROUP_A], limit: 10 })).toEqual(
      [GROUP_A, ZHANG].sort(),
    );
    expect(await found({ query: "成都", excludeSubjectPrefix: ["group:"], limit: 10 })).toEqual(
      [ZHANG, LI].sort(),
    );
    for (const query of [undefined, "成都"]) {
      const search = { query, subjects: [LI, GROUP_B], excludeSubjectPrefix: ["group:"], limit: 10 };
      expect(await found(search)).toEqual([LI]);
    }
    expect(
      await found({ query: "成都", excludeSubjectPrefix: ["group:", "person:onebot:10002"], limit: 10 }),
    ).toEqual([ZHANG]);
    expect(await found({ query: "成都", subjects: [], limit: 10 })).toEqual([]);
    expect(await found({ query: "成都", limit: 2 })).toHaveLength(2);
  });

  it("merges an update: new content is found instead of the old, sources join, confirmations grow", async () => {
    const entry = await memories.add(memory({ content: "下周二要去成都出差" }));
    await memories.setVector(entry.id, "embed-1", Float32Array.from([1, 2, 3]));
    const updated = await memories.update(entry.id, {
      content: "下周三改去重庆出差",
      sources: [
        { sessionId: "onebot:group:20001", messageId: "m9", userId: "10001", time: NOW + DAY },
        { sessionId: SESSION_A, messageId: "m1", userId: "10001", time: NOW },
      ],
      confirmedAt: NOW + DAY,
    });

    expect(updated).toMatchObject({
      id: entry.id,
      content: "下周三改去重庆出差",
      createdAt: NOW,
      updatedAt: NOW + DAY,
      confirmedAt: NOW + DAY,
      confirmations: 2,
    });
    expect(updated?.sources.map((source) => source.messageId)).toEqual(["m1", "m9"]);
    expect(await memories.search({ query: "成都", limit: 5 })).toEqual([]);
    expect((await memories.search({ query: "重庆", limit: 5 })).map((hit) => hit.entry.id)).toEqual([
      entry.id,
    ]);
    // The embedding described the old content.
    expect((await memories.vectors([entry.id], "embed-1")).size).toBe(0);

    // A console edit changes the text without counting as a confirmation.
    const edited = await memories.update(entry.id, { content: "下周三去重庆" });
    expect(edited?.confirmations).toBe(2);
    expect(await memories.update(9999, { content: "gone" })).toBeUndefined();
  });

  it("forgets a person: what is about them and what only they said, not what others confirmed", async () => {
    const about = await memories.add(memory({ content: "下周去成都" }));
    const toldByZhang = await memories.add(
      memory({ subject: LI, subjectName: "李四", content: "李四养了一只猫" }),
    );
    const toldByBoth = await memories.add(
      memory({
        subject: GROUP_A,
        subjectName: "A 群",
        content: "周五晚上开黑",
        sources: [
          { sessionId: SESSION_A, messageId: "m2", userId: "10001", time: NOW },
          { sessionId: SESSION_A, messageId: "m3", userId: "10002", time: NOW },
        ],
      }),
    );
    const fromConsole = await memories.add(
      memory({ subject: LI, subjectName: "李四", content: "李四是管理员", origin: "console", sources: [] }),
    );
    // The same user id in a stdio channel's chat is someone else.
    const toldInChannel = await memories.add(
      memory({
        subject: LI,
        subjectName: "李四",
        content: "李四住在春熙路",
        sessionId: "stdio:web:c1",
        sources: [{ sessionId: "stdio:web:c1", messageId: "m4", userId: "10001", time: NOW }],
      }),
    );

    const deleted = await memories.forgetPerson(ZHANG, "10001", "onebot:");
    expect(deleted.sort()).toEqual([about.id, toldByZhang.id].sort());
    expect(await memories.get(about.id)).toBeUndefined();
    expect(await memories.search({ query: "成都 猫", limit: 5 })).toEqual([]);
    const left = await memories.list({ limit: 10 });
    expect(left.map((entry) => entry.id).sort()).toEqual(
      [toldByBoth.id, fromConsole.id, toldInChannel.id].sort(),
    );
    expect(await memories.count()).toBe(3);
  });

  it("forgets a deleted message: what came only from it goes, the rest loses it as a source", async () => {
    const only = await memories.add(memory({ content: "下周去成都" }));
    const both = await memories.add(
      memory({
        content: "喜欢火锅",
        sources: [
          { sessionId: SESSION_A, messageId: "m1", userId: "10001", time: NOW },
          { sessionId: SESSION_A, messageId: "m2", userId: "10001", time: NOW + 1 },
        ],
      }),
    );
    // The same message id in another chat is another message.
    const elsewhere = await memories.add(
      memory({
        content: "养猫",
        sources: [{ sessionId: "onebot:group:1", messageId: "m1", userId: "1", time: NOW }],
      }),
    );

    expect(await memories.forgetMessage(SESSION_A, "m1")).toEqual([only.id]);
    expect(await memories.get(only.id)).toBeUndefined();
    expect((await memories.get(both.id))?.sources.map((source) => source.messageId)).toEqual(["m2"]);
    expect(await memories.get(elsewhere.id)).toBeDefined();
    expect(await memories.search({ query: "成都", limit: 5 })).toEqual([]);
    expect(await memories.forgetMessage(SESSION_A, "unknown")).toEqual([]);
    expect(await memories.deletedAmong(SESSION_A, ["m1", "m2", "unknown"])).toEqual(
      new Set(["m1", "unknown"]),
    );
    expect(await memories.deletedAmong("onebot:group:1", ["m1"])).toEqual(new Set());
  });

  it("lists newest change first, by subject and substring, a page at a time", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await memories.add(memory({ content: `事实${i}`, at: NOW + i }))).id);
    await memories.add(memory({ subject: LI, subjectName: "李四", content: "李四的事实", at: NOW + 10 }));

    const first = await memories.list({ subject: ZHANG, limit: 2 });
    expect(first.map((entry) => entry.content)).toEqual(["事实4", "事实3"]);
    const next = await memories.list({ subject: ZHANG, beforeId: first[1]?.id, limit: 2 });
    expect(next.map((entry) => entry.content)).toEqual(["事实2", "事实1"]);
    expect((await memories.list({ search: "李四", limit: 10 })).map((entry) => entry.content)).toEqual([
      "李四的事实",
    ]);
    expect(await memories.delete([ids[0]!, ids[0]!, 9999])).toBe(1);
    expect(await memories.count()).toBe(5);
  });

  it("keeps the learner's progress, passes per day, forgotten markers and vectors across a restart", async () => {
    const entry = await memories.add(memory({ content: "下周去成都" }));
    const vector = Float32Array.from([0.25, -1.5, 3.0e-8, 1e20]);
    await memories.setVector(entry.id, "embed-1", vector);
    expect(await memories.learnedUpTo(SESSION_A)).toBe(0);
    await memories.setLearnedUpTo(SESSION_A, 42);
    await memories.setLearnedUpTo(SESSION_A, 57);
    await memories.countPass(SESSION_A, "2026-06-01");
    await memories.countPass(SESSION_A, "2026-06-01");
    await memories.markForgotten(ZHANG, NOW);
    await memories.markForgotten(ZHANG, NOW - DAY);
    await reopen();

    expect(await memories.learnedUpTo(SESSION_A)).toBe(57);
    expect(await memories.passesOn(SESSION_A, "2026-06-01")).toBe(2);
    // A new day starts counting again; the progress stays.
    await memories.countPass(SESSION_A, "2026-06-02");
    expect(await memories.passesOn(SESSION_A, "2026-06-01")).toBe(0);
    expect(await memories.passesOn(SESSION_A, "2026-06-02")).toBe(1);
    expect(await memories.learnedUpTo(SESSION_A)).toBe(57);
    expect(await memories.forgottenAt([ZHANG, LI])).toEqual(new Map([[ZHANG, NOW]]));
    expect(await memories.vectors([entry.id], "embed-1")).toEqual(new Map([[entry.id, vector]]));
    expect((await memories.vectors([entry.id], "embed-2")).size).toBe(0);
  });

  it("adds the memory tables to a database made before them, keeping its messages", async () => {
    stores = await backend.open(await databaseBeforeMemory[backend.name]());
    memories = stores.memories;

    expect(await stores.messages.findByMessageId(SESSION_A, "m1")).toBeDefined();
    await memories.add(memory({ content: "下周去成都" }));
    expect(await memories.search({ query: "成都", limit: 1 })).toHaveLength(1);
  });
});

/** The url of a database at the schema before the memory tables, holding one message of SESSION_A. */
const databaseBeforeMemory: Record<BackendName, () => Promise<string>> = {
  async sqlite() {
    const dir = makeTempDir();
    onTestFinished(() => dir.remove());
    const file = join(dir.path, "tsumugi.db");
    const old = openSqliteDatabase(
      file,
      captureLog().logger,
      MIGRATIONS.filter((migration) => migration.version < 9),
    );
    old.prepare(INSERT_MESSAGE).run();
    old.close();
    return `sqlite:${file}`;
  },
  async postgres() {
    const url = await freshPostgresUrl();
    const old = await PgDatabase.open(
      url,
      captureLog().logger,
      PG_MIGRATIONS.filter((migration) => migration.version < 2),
    );
    await old.query(INSERT_MESSAGE);
    await old.close();
    return url;
  },
};

const INSERT_MESSAGE = `INSERT INTO messages (platform, adapter_id, self_id, session_id, chat_type, group_id,
    user_id, sender_name, message_id, segments, time, from_self)
  VALUES ('onebot', 'qq', '1', '${SESSION_A}', 'group', '20000', '10001', '张三', 'm1', '[]', 1, 0)`;
