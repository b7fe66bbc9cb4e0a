/**
 * Ingest when the store answers later than SQLite does (a database server): whom a reply
 * quotes is read from the store, and a chat's messages must still go on in the order they came.
 * A real database answers at once, so only a store that waits to be told can show this.
 */
import { describe, expect, it } from "vitest";
import type { Batch } from "../../src/chat/batch.ts";
import { type Arrival, ChatService } from "../../src/chat/chat-service.ts";
import { DigestScheduler } from "../../src/chat/digest-scheduler.ts";
import { RealtimeBatcher } from "../../src/chat/realtime-batcher.ts";
import { StagePath } from "../../src/chat/stage-path.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import type { Segment } from "../../src/message/segment.ts";
import { type MonitorEvent, MonitorHub } from "../../src/monitor/monitor.ts";
import type { HistoryQuery, MessageStore } from "../../src/store/types.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { BOB, groupChatMessage, SELF } from "../support/messages.ts";
import { captureLog } from "../support/store.ts";

/** Holds every lookup until `answer()`; then answers from what it stored, or refuses them all. */
class SlowStore implements MessageStore {
  readonly rows: ChatMessage[] = [];
  private readonly waiting: Array<(refuse: boolean) => void> = [];
  append(message: ChatMessage): void {
    this.rows.push(message);
  }
  async recent(query: HistoryQuery): Promise<ChatMessage[]> {
    return this.rows.filter((m) => m.sessionId === query.sessionId).slice(-query.limit);
  }
  findByMessageId(sessionId: string, messageId: string): Promise<ChatMessage | undefined> {
    return new Promise((resolve, reject) =>
      this.waiting.push((refuse) =>
        refuse
          ? reject(new Error("database is locked"))
          : resolve(this.rows.findLast((m) => m.sessionId === sessionId && m.messageId === messageId)),
      ),
    );
  }
  answer(refuse = false): void {
    for (const settle of this.waiting.splice(0)) settle(refuse);
  }
  async markRecalled(): Promise<number> {
    return 0;
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

const WINDOW_MS = 800;

function setUp() {
  const store = new SlowStore();
  const clock = new ManualClock();
  const batches: Batch[] = [];
  const realtime = { windowMs: WINDOW_MS, maxWindowMs: 3_000, maxMessages: 10, maxChars: 8_000 };
  const batcher = new RealtimeBatcher(
    () => ({ ...realtime, maxTurnMessages: 30, maxTurnChars: 8_000, maxTurnMessagesPerUser: 10 }),
    clock,
    (batch) => batches.push(batch),
  );
  const digest = {
    enabled: false,
    intervalMs: 300_000,
    minMessages: 3,
    maxMessages: 50,
    maxTranscriptChars: 20_000,
  };
  const digests = new DigestScheduler(
    () => digest,
    clock,
    (batch) => batches.push(batch),
  );
  const monitor = new MonitorHub();
  const ingested: MonitorEvent[] = [];
  monitor.subscribe((event) => {
    if (event.type === "message.ingested") ingested.push(event);
  });
  const chatStages = new ChatService({
    store,
    batcher,
    digests,
    commands: { dispatch: () => false },
    triggers: () => ({
      mention: true,
      replyToSelf: true,
      keywords: [],
      privateAlways: true,
      poke: true,
      names: ["紬"],
    }),
    access: () => ({ privateChats: true, allow: [], deny: [] }),
    sendsInFlight: () => undefined,
    monitor,
    logger: captureLog().logger,
    logMessageText: () => false,
  });
  // The chat stages of the message path, in its order, each chat's messages kept in order.
  const path = new StagePath<Arrival>(
    (["store", "trigger", "access", "command", "batch"] as const).map((name) => ({
      name,
      run: (arrival: Arrival) => chatStages[name](arrival),
    })),
    { orderBy: (arrival) => arrival.message.sessionId, failed: () => {} },
  );
  const chat = { ingest: (message: ChatMessage) => void path.run({ message }) };
  const said = (messageId: string, text: string, quoting?: string) => {
    const segments: Segment[] = [{ type: "text", data: { text } }];
    if (quoting) segments.unshift({ type: "reply", data: { id: quoting } });
    return groupChatMessage({ userId: BOB, messageId, segments });
  };
  /** Lets the ingest promises settle. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { store, clock, batches, ingested, chat, said, settle };
}

describe("ingest while the store answers later", () => {
  it("keeps the line behind a reply to the bot behind it, in the same turn", async () => {
    const { store, clock, batches, ingested, chat, said, settle } = setUp();
    chat.ingest(groupChatMessage({ userId: SELF, messageId: "b1", fromSelf: true, text: "第一问的答案" }));
    chat.ingest(said("m1", "那第二问呢", "b1"));
    chat.ingest(said("m2", "顺便再问一句"));
    await settle();
    expect(ingested.map((event) => event.data.messageId)).toEqual(["b1"]);

    store.answer();
    await settle();
    expect(ingested.map((event) => [event.data.messageId, event.data.trigger])).toEqual([
      ["b1", null],
      ["m1", "reply_to_self"],
      ["m2", null],
    ]);
    clock.advance(WINDOW_MS);
    expect(batches.map((batch) => [batch.messages.map((m) => m.messageId), batch.triggerIds])).toEqual([
      [["m1", "m2"], ["m1"]],
    ]);
  });

  it("takes a reply as chatter when the store cannot say whom it quotes, and goes on", async () => {
    const { store, clock, batches, ingested, chat, said, settle } = setUp();
    chat.ingest(said("m1", "那第二问呢", "b1"));
    store.answer(true);
    await settle();
    chat.ingest(said("m2", "@紬 在吗"));
    clock.advance(WINDOW_MS);
    expect(ingested.map((event) => [event.data.messageId, event.data.trigger])).toEqual([
      ["m1", null],
      ["m2", "keyword"],
    ]);
    expect(batches.map((batch) => batch.triggerIds)).toEqual([["m2"]]);
  });
});
