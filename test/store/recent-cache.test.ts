import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { RecentMessageCache } from "../../src/store/recent-cache.ts";
import type { HistoryQuery, MessageStore } from "../../src/store/types.ts";

/** A store that counts reads, to see what the cache saves. */
class CountingStore implements MessageStore {
  readonly rows: ChatMessage[] = [];
  reads = 0;
  append(message: ChatMessage): void {
    this.rows.push(message);
  }
  async recent(query: HistoryQuery): Promise<ChatMessage[]> {
    this.reads++;
    const own = this.rows.filter((m) => m.sessionId === query.sessionId);
    return query.limit <= 0 ? [] : own.slice(-query.limit);
  }
  async findByMessageId(sessionId: string, messageId: string): Promise<ChatMessage | undefined> {
    this.reads++;
    return this.rows.findLast((m) => m.sessionId === sessionId && m.messageId === messageId);
  }
  async markRecalled(): Promise<number> {
    return 0;
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/**
 * A store that answers a read only when told to, as a database server may: with what it held
 * when asked, or with what it holds when it answers.
 */
class SlowStore extends CountingStore {
  private readonly answers: Array<() => void> = [];
  constructor(private readonly seesLaterWrites: boolean) {
    super();
  }
  override recent(query: HistoryQuery): Promise<ChatMessage[]> {
    const asked = super.recent(query);
    return new Promise((resolve) =>
      this.answers.push(() => resolve(this.seesLaterWrites ? super.recent(query) : asked)),
    );
  }
  answer(): void {
    for (const answer of this.answers.splice(0)) answer();
  }
}

function message(sessionId: string, id: number): ChatMessage {
  return {
    platform: "onebot",
    adapterId: "qq",
    selfId: "1",
    sessionId,
    chatType: "group",
    groupId: "g",
    userId: "u",
    senderName: "U",
    messageId: String(id),
    segments: [{ type: "text", data: { text: `m${id}` } }],
    time: id,
    fromSelf: false,
  };
}

describe("RecentMessageCache", () => {
  it("serves a session's history from memory after the first read, staying current", async () => {
    const store = new CountingStore();
    const cache = new RecentMessageCache(store, { perSession: 5, sessions: 10 });
    for (let i = 1; i <= 3; i++) cache.append(message("s", i));
    expect((await cache.recent({ sessionId: "s", limit: 2 })).map((m) => m.messageId)).toEqual(["2", "3"]);
    expect(store.reads).toBe(1);
    for (let i = 4; i <= 9; i++) cache.append(message("s", i));
    expect((await cache.recent({ sessionId: "s", limit: 5 })).map((m) => m.messageId)).toEqual([
      "5",
      "6",
      "7",
      "8",
      "9",
    ]);
    expect((await cache.findByMessageId("s", "8"))?.messageId).toBe("8");
    expect(store.reads).toBe(1);
    expect(store.rows).toHaveLength(9);
  });

  it("goes to the store for larger requests and evicts the least recently used session", async () => {
    const store = new CountingStore();
    const cache = new RecentMessageCache(store, { perSession: 2, sessions: 2 });
    for (const s of ["a", "b", "c"]) cache.append(message(s, 1));
    expect(await cache.recent({ sessionId: "a", limit: 10 })).toHaveLength(1);
    await cache.recent({ sessionId: "a", limit: 1 });
    await cache.recent({ sessionId: "b", limit: 1 });
    await cache.recent({ sessionId: "c", limit: 1 });
    const reads = store.reads;
    await cache.recent({ sessionId: "a", limit: 1 });
    expect(store.reads).toBe(reads + 1);
    expect(await cache.recent({ sessionId: "x", limit: 0 })).toEqual([]);
  });

  it.each([
    ["its answer misses it", false],
    ["its answer holds it too", true],
  ])(
    "keeps a message appended while a session is first read from a slower store once (%s)",
    async (_, seesLaterWrites) => {
      const store = new SlowStore(seesLaterWrites);
      const cache = new RecentMessageCache(store, { perSession: 5, sessions: 10 });
      cache.append(message("s", 1));
      const first = cache.recent({ sessionId: "s", limit: 5 });
      const second = cache.recent({ sessionId: "s", limit: 5 });
      cache.append(message("s", 2));
      store.answer();
      const ids = (history: ChatMessage[]) => history.map((m) => m.messageId);
      expect(ids(await first)).toEqual(["1", "2"]);
      expect(ids(await second)).toEqual(["1", "2"]);
      cache.append(message("s", 3));
      const reads = store.reads;
      expect(ids(await cache.recent({ sessionId: "s", limit: 5 }))).toEqual(["1", "2", "3"]);
      expect(store.reads).toBe(reads);
    },
  );
});
