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
  recent(query: HistoryQuery): ChatMessage[] {
    this.reads++;
    const own = this.rows.filter((m) => m.sessionId === query.sessionId);
    return query.limit <= 0 ? [] : own.slice(-query.limit);
  }
  findByMessageId(sessionId: string, messageId: string): ChatMessage | undefined {
    this.reads++;
    return this.rows.findLast((m) => m.sessionId === sessionId && m.messageId === messageId);
  }
  flush(): void {}
  close(): void {}
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
  it("serves a session's history from memory after the first read, staying current", () => {
    const store = new CountingStore();
    const cache = new RecentMessageCache(store, { perSession: 5, sessions: 10 });
    for (let i = 1; i <= 3; i++) cache.append(message("s", i));
    expect(cache.recent({ sessionId: "s", limit: 2 }).map((m) => m.messageId)).toEqual(["2", "3"]);
    expect(store.reads).toBe(1);
    for (let i = 4; i <= 9; i++) cache.append(message("s", i));
    expect(cache.recent({ sessionId: "s", limit: 5 }).map((m) => m.messageId)).toEqual([
      "5",
      "6",
      "7",
      "8",
      "9",
    ]);
    expect(cache.findByMessageId("s", "8")?.messageId).toBe("8");
    expect(store.reads).toBe(1);
    expect(store.rows).toHaveLength(9);
  });

  it("goes to the store for larger requests and evicts the least recently used session", () => {
    const store = new CountingStore();
    const cache = new RecentMessageCache(store, { perSession: 2, sessions: 2 });
    for (const s of ["a", "b", "c"]) cache.append(message(s, 1));
    expect(cache.recent({ sessionId: "a", limit: 10 })).toHaveLength(1);
    cache.recent({ sessionId: "a", limit: 1 });
    cache.recent({ sessionId: "b", limit: 1 });
    cache.recent({ sessionId: "c", limit: 1 });
    const reads = store.reads;
    cache.recent({ sessionId: "a", limit: 1 });
    expect(store.reads).toBe(reads + 1);
    expect(cache.recent({ sessionId: "x", limit: 0 })).toEqual([]);
  });
});
