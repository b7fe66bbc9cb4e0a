import { beforeEach, expect, it } from "vitest";
import type { RetentionLimits } from "../../../src/monitor/event-store.ts";
import type { MonitorEvent } from "../../../src/monitor/monitor.ts";
import type { Stores } from "../../../src/store/types.ts";
import { forEachBackend } from "./backends.ts";

const HOUR = 3_600_000;

function turn(replyId: string, time: number, session = "onebot:1:group:2"): MonitorEvent[] {
  return [
    { type: "turn.started", time, replyId, sessionId: session, data: { messageIds: ["m1"] } },
    { type: "planner.round", time: time + 1, replyId, sessionId: session, data: { round: 1 } },
    {
      type: "turn.finished",
      time: time + 2,
      replyId,
      sessionId: session,
      data: { status: "silent", reason: "r" },
    },
  ];
}

forEachBackend((backend) => {
  let limits: RetentionLimits;
  let stores: Stores;
  const open = (url?: string) => backend.open(url, { monitorRetention: () => limits });
  const store = () => stores.monitorEvents;
  const count = async () =>
    (await backend.committedRows(backend.urlOf(stores), "SELECT COUNT(*) AS n FROM monitor_events"))[0]?.n;

  beforeEach(async () => {
    limits = { maxEvents: 10_000, maxAgeHours: 72 };
    stores = await open();
  });

  it("keeps at most maxEvents, dropping the oldest, and applies a changed limit at the next write", async () => {
    limits.maxEvents = 100;
    const now = Date.now();
    for (let i = 0; i < 250; i++)
      store().append({ type: "tool.called", time: now, replyId: `r${i}`, data: { i } });
    await store().flush();
    expect(await count()).toBe(100);
    const newest = (await store().list({ limit: 1 }))[0]!;
    expect(newest.data.i).toBe(249);
    expect((await store().list({ limit: 1000 })).at(-1)!.data.i).toBe(150);

    limits.maxEvents = 10;
    store().append({ type: "tool.called", time: now, data: { i: 250 } });
    await store().flush();
    expect(await count()).toBe(10);
  });

  it("lists only the types asked for, newest first and pageable, in a turn or across turns", async () => {
    const now = Date.now();
    for (const event of turn("r1", now)) store().append(event);
    const learned = store().append({ type: "memory.learned", time: now + 10, data: { origin: "learned" } });
    for (const event of turn("r2", now + 20)) store().append(event);
    const forgotten = store().append({ type: "memory.forgotten", time: now + 30, data: { by: "console" } });
    const inTurn = store().append({
      type: "memory.learned",
      time: now + 40,
      replyId: "r2",
      data: { origin: "tool" },
    });
    const types = ["memory.learned", "memory.forgotten"] as const;

    const ids = async (query: Parameters<Stores["monitorEvents"]["list"]>[0]) =>
      (await store().list(query)).map((event) => event.id);
    expect(await ids({ types: [...types], limit: 10 })).toEqual([inTurn.id, forgotten.id, learned.id]);
    expect(await ids({ types: [...types], limit: 2, beforeId: inTurn.id })).toEqual([
      forgotten.id,
      learned.id,
    ]);
    expect(await ids({ types: ["memory.learned"], replyId: "r2", limit: 10 })).toEqual([inTurn.id]);
    expect(await ids({ limit: 100 })).toHaveLength(9);
    expect(await store().list({ replyId: "r2", limit: 10 })).toEqual(
      (await store().turnEvents("r2")).reverse(),
    );
  });

  it("deletes events older than maxAgeHours", async () => {
    const now = Date.now();
    store().append({ type: "tool.called", time: now - 73 * HOUR, data: { old: true } });
    store().append({ type: "tool.called", time: now - 71 * HOUR, data: { old: false } });
    await store().flush();
    expect((await store().list({ limit: 10 })).map((event) => event.data.old)).toEqual([false]);
  });

  it("lists turns newest first with status, round count and texts, searchable and pageable", async () => {
    const now = Date.now();
    for (const event of [...turn("aaa-1", now), ...turn("bbb-2", now + 10, "console:10000:private:5")]) {
      store().append(event);
    }
    store().append({
      type: "turn.started",
      time: now + 20,
      replyId: "ccc-3",
      sessionId: "s",
      data: { triggerText: "Alice: 在吗" },
    });
    for (const text of ["在的", "x".repeat(400)]) {
      store().append({
        type: "message.sent",
        time: now + 21,
        replyId: "ccc-3",
        sessionId: "s",
        data: { text },
      });
    }
    const turns = await store().turns({ limit: 10 });
    expect(turns.map((t) => [t.replyId, t.status, t.rounds])).toEqual([
      ["ccc-3", undefined, 0],
      ["bbb-2", "silent", 1],
      ["aaa-1", "silent", 1],
    ]);
    expect(turns[0]).toMatchObject({ triggerText: "Alice: 在吗", replyText: `在的\n${"x".repeat(297)}…` });
    expect(turns[1]).toMatchObject({ reason: "r", startedAt: now + 10, finishedAt: now + 12 });
    expect(turns[1]?.triggerText).toBeUndefined();
    expect((await store().turns({ search: "bb", limit: 10 })).map((t) => t.replyId)).toEqual(["bbb-2"]);
    expect((await store().turns({ search: "BB", limit: 10 })).map((t) => t.replyId)).toEqual(["bbb-2"]);
    expect((await store().turns({ search: "private", limit: 10 })).map((t) => t.replyId)).toEqual(["bbb-2"]);
    expect(await store().turns({ search: "%", limit: 10 })).toEqual([]);
    expect((await store().turns({ beforeId: turns[1]!.id, limit: 10 })).map((t) => t.replyId)).toEqual([
      "aaa-1",
    ]);
    expect((await store().turnEvents("aaa-1")).map((event) => event.type)).toEqual([
      "turn.started",
      "planner.round",
      "turn.finished",
    ]);
  });

  it("lists a turn once, with its last outcome, when it was finished twice (crash recovery)", async () => {
    const now = Date.now();
    for (const event of turn("r1", now)) store().append(event);
    store().append({
      type: "turn.finished",
      time: now + 5,
      replyId: "r1",
      sessionId: "onebot:1:group:2",
      data: { status: "failed", reason: "interrupted by a restart" },
    });
    await store().flush();
    const turns = await store().turns({ limit: 10 });
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ replyId: "r1", status: "failed", finishedAt: now + 5 });
  });

  it("gives each event its id on append, and keeps counting after the database is opened again", async () => {
    const now = Date.now();
    const first = turn("aaa-1", now).map((event) => store().append(event));
    const [one, two, three] = first.map((event) => event.id) as [number, number, number];
    expect(one).toBeLessThan(two);
    expect(two).toBeLessThan(three);
    const url = backend.urlOf(stores);
    await stores.close();

    stores = await open(url);
    const later = store().append({ type: "tool.called", time: now, replyId: "aaa-1", data: {} });
    expect(later.id).toBeGreaterThan(three);
    // Stored under the ids the live stream already carried, in the order they were appended.
    expect((await store().turnEvents("aaa-1")).map((event) => [event.id, event.type])).toEqual([
      [one, "turn.started"],
      [two, "planner.round"],
      [three, "turn.finished"],
      [later.id, "tool.called"],
    ]);
  });

  it.runIf(backend.name === "postgres")(
    "never gives the same id twice when several instances share the database",
    async () => {
      const other = await open(backend.urlOf(stores));
      const now = Date.now();
      const given: number[] = [];
      for (let i = 0; i < 1_200; i++) {
        const by = i % 2 === 0 ? store() : other.monitorEvents;
        given.push(by.append({ type: "tool.called", time: now, replyId: `r${i}`, data: { i } }).id);
        // Now and then a turn of the event loop, as between turns: each instance refills its ids.
        if (i % 100 === 0) await Promise.all([store().flush(), other.monitorEvents.flush()]);
      }
      await Promise.all([store().flush(), other.monitorEvents.flush()]);

      expect(new Set(given).size).toBe(1_200);
      expect(await count()).toBe(1_200);
      // Ordered by time across instances: what one appends later sorts after what both gave before.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const afterwards = other.monitorEvents.append({
        type: "tool.called",
        time: now,
        replyId: "late",
        data: {},
      });
      expect(afterwards.id).toBeGreaterThan(Math.max(...given));
      const stored = await store().list({ limit: 2_000 });
      expect(stored.map((event) => event.data.i).sort((a, b) => Number(a) - Number(b))).toEqual(
        given.map((_, i) => i),
      );
    },
  );
});
