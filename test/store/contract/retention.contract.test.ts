import { beforeEach, expect, it } from "vitest";
import type { MessageRetentionSettings } from "../../../src/store/config.ts";
import { MessageRetention } from "../../../src/store/message-retention.ts";
import type { Stores } from "../../../src/store/types.ts";
import { captureLog, groupMessage } from "../../support/store.ts";
import { forEachBackend } from "./backends.ts";

const DAY_MS = 86_400_000;
const GROUP_A = "onebot:10000:group:1";
const GROUP_B = "onebot:10000:group:2";

forEachBackend((backend) => {
  let stores: Stores;
  let settings: MessageRetentionSettings;
  /** Retention as the bot runs it on a timer, here one pass at a time. */
  let retention: MessageRetention;

  beforeEach(async () => {
    stores = await backend.open();
    settings = { days: 0, messagesPerSession: 0 };
    const steps = await backend.retentionSteps(backend.urlOf(stores));
    retention = new MessageRetention(
      steps,
      () => settings,
      () => true,
      captureLog().logger,
    );
  });

  const append = async (sessionId: string, count: number, time: number, prefix: string) => {
    for (let index = 0; index < count; index++) {
      stores.messages.append(groupMessage({ sessionId, messageId: `${prefix}${index}`, time }));
    }
    await stores.messages.flush();
  };
  const chats = async () =>
    (await stores.history.sessions({ limit: 10 })).map((s) => [
      s.sessionId,
      s.messageCount,
      s.last.messageId,
    ]);

  it("keeps everything with both limits off", async () => {
    await append(GROUP_A, 50, Date.now() - 1_000 * DAY_MS, "a");
    expect(await retention.runPass()).toBe(0);
    expect(await chats()).toEqual([[GROUP_A, 50, "a49"]]);
  });

  it("keeps each chat's newest messagesPerSession, deleting in small steps, and the chat list stays right", async () => {
    await append(GROUP_A, 1_200, Date.now(), "a");
    await append(GROUP_B, 30, Date.now(), "b");
    settings = { days: 0, messagesPerSession: 100 };

    expect(await retention.runPass()).toBe(1_100);
    expect(await chats()).toEqual([
      [GROUP_B, 30, "b29"],
      [GROUP_A, 100, "a1199"],
    ]);
    const oldestKept = (await stores.history.messages({ sessionId: GROUP_A, limit: 500 })).at(-1);
    expect(oldestKept?.messageId).toBe("a1100");
    expect(await stores.messages.recent({ sessionId: GROUP_A, limit: 1_000 })).toHaveLength(100);
  });

  it("deletes messages older than days, and forgets chats left empty", async () => {
    await append(GROUP_A, 700, Date.now() - 40 * DAY_MS, "old");
    await append(GROUP_B, 10, Date.now() - 40 * DAY_MS, "gone");
    await append(GROUP_A, 5, Date.now(), "new");
    settings = { days: 30, messagesPerSession: 0 };

    expect(await retention.runPass()).toBe(710);
    expect(await chats()).toEqual([[GROUP_A, 5, "new4"]]);
  });

  it("waits while the database cannot be written", async () => {
    const steps = await backend.retentionSteps(backend.urlOf(stores));
    const blocked = new MessageRetention(
      steps,
      () => ({ days: 0, messagesPerSession: 1 }),
      () => false,
      captureLog().logger,
    );
    await append(GROUP_A, 10, Date.now(), "a");
    expect(await blocked.runPass()).toBe(0);
    expect(await chats()).toEqual([[GROUP_A, 10, "a9"]]);
  });
});
