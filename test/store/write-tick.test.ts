import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../src/log/logger.ts";
import { openStore } from "../../src/store/open-store.ts";

describe("one write transaction per event-loop turn", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** The bot's stores on a new file, and a second connection that sees only what was committed. */
  async function openWithReader() {
    const dir = mkdtempSync(join(tmpdir(), "tsumugi-tick-"));
    dirs.push(dir);
    const file = join(dir, "t.db");
    const stores = await openStore(`sqlite:${file}`, createLogger({ level: "silent" }));
    const reader = new Database(file, { readonly: true });
    const count = (table: string) =>
      (reader.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { stores, reader, count };
  }

  it("commits messages, usage and turns of one turn together, visible to another connection", async () => {
    const { stores, reader, count } = await openWithReader();
    const commitsBefore = reader.pragma("data_version", { simple: true });
    stores.messages.append({
      platform: "onebot",
      adapterId: "qq",
      selfId: "1",
      sessionId: "s",
      chatType: "private",
      userId: "2",
      senderName: "A",
      messageId: "m1",
      segments: [{ type: "text", data: { text: "hi" } }],
      time: 1,
      fromSelf: false,
    });
    stores.usage.record({
      time: 1,
      task: "planner",
      provider: "p",
      model: "m",
      promptTokens: 1,
      completionTokens: 1,
      latencyMs: 1,
      success: true,
    });
    await stores.turns.record({
      replyId: "r1",
      sessionId: "s",
      status: "silent",
      triggerMessageIds: ["m1"],
      createdAt: 1,
      finishedAt: 2,
    });
    expect([count("messages"), count("llm_usage"), count("turns")]).toEqual([0, 0, 0]);
    await new Promise((resolve) => setImmediate(resolve));
    expect([count("messages"), count("llm_usage"), count("turns")]).toEqual([1, 1, 1]);
    // data_version moves once per commit made by another connection.
    expect(reader.pragma("data_version", { simple: true })).toBe((commitsBefore as number) + 1);
    expect((await stores.turns.get("r1"))?.status).toBe("silent");
    reader.close();
    await stores.close();
  });

  it("commits a turn's start with the messages queued before it, in one commit, before begin resolves", async () => {
    const { stores, reader, count } = await openWithReader();
    // Commits as better-sqlite3 makes them: each transaction runs its COMMIT statement.
    const statement = Object.getPrototypeOf(reader.prepare("SELECT 1")) as Database.Statement;
    const run = statement.run;
    let commits = 0;
    vi.spyOn(statement, "run").mockImplementation(function (this: Database.Statement, ...params: unknown[]) {
      if (this.source === "COMMIT") commits++;
      return run.apply(this, params);
    });
    stores.messages.append({
      platform: "onebot",
      adapterId: "qq",
      selfId: "1",
      sessionId: "s",
      chatType: "group",
      groupId: "3",
      userId: "2",
      senderName: "A",
      messageId: "m1",
      segments: [{ type: "text", data: { text: "在吗" } }],
      time: 1,
      fromSelf: false,
    });
    await stores.turns.begin({
      replyId: "r1",
      sessionId: "s",
      status: "running",
      kind: "realtime",
      triggerMessageIds: ["m1"],
      messageIds: ["m1"],
      createdAt: 1,
    });
    vi.restoreAllMocks();
    expect([count("messages"), count("turns")]).toEqual([1, 1]);
    // A turn's start is one commit (the trigger message and the running record together), not two.
    expect(commits).toBe(1);
    expect((await stores.turns.get("r1"))?.status).toBe("running");
    reader.close();
    await stores.close();
  });
});
