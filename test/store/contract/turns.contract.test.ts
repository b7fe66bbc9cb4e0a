import { expect, it } from "vitest";
import type { NewSend, TurnRecord } from "../../../src/store/types.ts";
import { groupMessage } from "../../support/store.ts";
import { forEachBackend } from "./backends.ts";

const SESSION = "onebot:10000:group:20000";

function finished(overrides: Partial<TurnRecord> = {}): TurnRecord {
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

const SEND: NewSend = {
  replyId: "r1",
  sessionId: SESSION,
  target: "qq:10000:group:20000",
  contentHash: "ab",
  summary: "好",
};

forEachBackend((backend) => {
  it("round-trips turn records, with and without optional fields", async () => {
    const { turns } = await backend.open();
    const full = finished({
      status: "silent",
      reason: "nobody asked me",
      kind: "digest",
      messageIds: ["1", "7318462934586791234"],
      recoveredFrom: "r0",
      attempt: 2,
      instanceId: "bot-a",
      detail: { rounds: [{ tool: "no_reply", args: { reason: "x" } }], tokens: 1234 },
    });
    const bare = finished({ replyId: "r2", status: "failed" });
    await turns.record(full);
    await turns.record(bare);

    expect(await turns.get("r1")).toStrictEqual(full);
    expect(await turns.get("r2")).toStrictEqual(bare);
    expect(await turns.get("missing")).toBeUndefined();
  });

  it("replaces a turn recorded again under the same reply id", async () => {
    const { turns } = await backend.open();
    await turns.record(finished({ status: "failed", reason: "timeout", instanceId: "bot-a" }));
    await turns.record(finished({ status: "replied" }));

    expect(await turns.get("r1")).toStrictEqual(finished({ status: "replied" }));
    expect(await turns.listBySession(SESSION, 10)).toHaveLength(1);
  });

  it("lists a session's newest turns first, limited, without other sessions", async () => {
    const { turns } = await backend.open();
    for (let index = 0; index < 5; index++) {
      await turns.record(finished({ replyId: `a${index}`, createdAt: 1000 + index }));
      await turns.record(
        finished({ replyId: `b${index}`, sessionId: "onebot:10000:private:1", createdAt: 1000 + index }),
      );
    }

    expect((await turns.listBySession(SESSION, 3)).map((turn) => turn.replyId)).toEqual(["a4", "a3", "a2"]);
    expect(await turns.listBySession("onebot:10000:private:1", 10)).toHaveLength(5);
    expect(await turns.listBySession("onebot:10000:group:404", 10)).toEqual([]);
  });

  it("commits a running turn at once, with the trigger messages queued before it", async () => {
    const stores = await backend.open();
    stores.messages.append(groupMessage({ messageId: "7318462934586791234" }));
    await stores.turns.begin(running({ instanceId: "bot-a" }));

    // Another connection, as the process after a crash: no queued write may be missing.
    const url = backend.urlOf(stores);
    expect(await backend.committedRows(url, "SELECT message_id FROM messages")).toEqual([
      { message_id: "7318462934586791234" },
    ]);
    const afterCrash = await backend.open(url);
    expect(await afterCrash.turns.running()).toStrictEqual([running({ instanceId: "bot-a" })]);
    expect(await afterCrash.messages.findByMessageId(SESSION, "7318462934586791234")).toBeDefined();
  });

  it("keeps each message once when turns begin while earlier ones still commit", async () => {
    const stores = await backend.open();
    const begun: Promise<void>[] = [];
    const ids = Array.from({ length: 30 }, (_, index) => String(index));
    for (const id of ids) {
      stores.messages.append(groupMessage({ messageId: id }));
      begun.push(stores.turns.begin(running({ replyId: `r${id}`, triggerMessageIds: [id] })));
      // Many groups' turns begin a moment apart, each while earlier ones are being committed.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(begun);

    const history = await stores.messages.recent({ sessionId: SESSION, limit: 100 });
    expect(history.map((message) => message.messageId)).toEqual(ids);
    expect(await stores.turns.running()).toHaveLength(ids.length);
  });

  it("fails a running turn the database refuses, yet commits the writes queued before it", async () => {
    const stores = await backend.open();
    stores.messages.append(groupMessage({ messageId: "1" }));
    stores.messages.append(groupMessage({ messageId: "2" }));
    await stores.turns.record(finished({ replyId: "r0" }));
    // The status column accepts only the statuses a turn can have.
    const refused = running({ status: "bogus" as TurnRecord["status"] });

    await expect(stores.turns.begin(refused)).rejects.toThrow(/check|constraint/i);
    const url = backend.urlOf(stores);
    expect(await backend.committedRows(url, "SELECT message_id FROM messages ORDER BY id")).toEqual([
      { message_id: "1" },
      { message_id: "2" },
    ]);
    expect(await backend.committedRows(url, "SELECT reply_id FROM turns")).toEqual([{ reply_id: "r0" }]);
    expect(await backend.committedRows(url, "SELECT COUNT(*) AS n FROM quarantine")).toEqual([{ n: 0 }]);
    expect(stores.status().state).toBe("ok");
  });

  it("replaces the running record with the outcome and lists only turns still running, oldest first", async () => {
    const { turns } = await backend.open();
    await turns.begin(running({ replyId: "r3", createdAt: 1_700_000_000_900 }));
    await turns.begin(running());
    await turns.begin(running({ replyId: "r2", createdAt: 1_700_000_000_500 }));
    await turns.record({
      ...running(),
      status: "replied",
      reason: "replied to -42",
      finishedAt: 1_700_000_001_000,
    });

    expect((await turns.running()).map((turn) => turn.replyId)).toEqual(["r2", "r3"]);
    expect(await turns.get("r1")).toMatchObject({ status: "replied", finishedAt: 1_700_000_001_000 });
  });

  it("marks the interrupted turn in the same commit as the turn that runs it again", async () => {
    const stores = await backend.open();
    await stores.turns.begin(running({ replyId: "old" }));
    await stores.turns.begin(running({ replyId: "new", recoveredFrom: "old", createdAt: 1_700_000_100_000 }));

    expect(
      await backend.committedRows(
        backend.urlOf(stores),
        "SELECT reply_id, status, reason, finished_at, recovered_from FROM turns ORDER BY created_at",
      ),
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
    expect((await stores.turns.running()).map((turn) => turn.replyId)).toEqual(["new"]);
  });

  it("marks the interrupted turn when a recovered turn is recorded finished, but never a finished one", async () => {
    const { turns } = await backend.open();
    await turns.begin(running({ replyId: "old" }));
    await turns.record(finished({ replyId: "new", recoveredFrom: "old", createdAt: 1_700_000_100_000 }));
    await turns.record(finished({ replyId: "done" }));
    await turns.record(finished({ replyId: "again", recoveredFrom: "done", createdAt: 1_700_000_200_000 }));

    expect(await turns.get("old")).toMatchObject({ status: "interrupted", finishedAt: 1_700_000_100_000 });
    expect(await turns.get("done")).toMatchObject({ status: "replied", finishedAt: 1_700_000_001_500 });
    expect(await turns.running()).toEqual([]);
  });

  it("commits a pending send before it leaves and settles it afterwards", async () => {
    const stores = await backend.open();
    const url = backend.urlOf(stores);
    const first = await stores.sends.pending(SEND);
    const second = await stores.sends.pending(SEND);
    expect(second).toBeGreaterThan(first);
    expect(await backend.committedRows(url, "SELECT id, state FROM sends ORDER BY id")).toEqual([
      { id: first, state: "pending" },
      { id: second, state: "pending" },
    ]);

    await stores.sends.sent(first, "100001");
    await stores.sends.settleFailed(second, "in_doubt", "send_group_msg not completed: connection closed");
    const entries = await stores.sends.forReply("r1");
    expect(
      entries.map(({ id, state, platformMessageId, error }) => ({ id, state, platformMessageId, error })),
    ).toEqual([
      { id: first, state: "sent", platformMessageId: "100001", error: undefined },
      {
        id: second,
        state: "in_doubt",
        platformMessageId: undefined,
        error: "send_group_msg not completed: connection closed",
      },
    ]);
    expect(entries[0]).toMatchObject({
      ...SEND,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(await stores.sends.forReply("other")).toEqual([]);

    // The settlements reach the database too: a restart reads them.
    await stores.close();
    const again = await backend.open(url);
    expect((await again.sends.forReply("r1")).map((entry) => entry.state)).toEqual(["sent", "in_doubt"]);
  });

  it("prunes sends created before a time", async () => {
    const { sends } = await backend.open();
    const id = await sends.pending(SEND);
    await sends.settleFailed(id, "failed", "refused");
    const created = (await sends.forReply("r1"))[0]?.createdAt ?? 0;

    expect(await sends.pruneBefore(created)).toBe(0);
    expect(await sends.pruneBefore(created + 1)).toBe(1);
    expect(await sends.forReply("r1")).toEqual([]);
  });
});
