import { beforeEach, expect, it } from "vitest";
import type { Stores } from "../../../src/store/types.ts";
import { groupChatMessage, groupSession, OTHER_GROUP, SELF } from "../../support/messages.ts";
import { forEachBackend } from "./backends.ts";

const NOW = 1_800_000_000_000;
const MINUTE = 60_000;
const GROUP_CHAT = groupSession();
const OTHER_CHAT = groupSession(OTHER_GROUP);

const said = (expression: string) => ({
  expression,
  meaning: `${expression} means`,
  example: `${expression}!`,
});

forEachBackend((backend) => {
  let stores: Stores;

  beforeEach(async () => {
    stores = await backend.open();
  });

  it("counts each group's messages in the last hour and day, its members and the bot's share", async () => {
    const at = (minutesAgo: number) => NOW - minutesAgo * MINUTE;
    for (const message of [
      groupChatMessage({ userId: "30001", time: at(2 * 24 * 60) }), // older than a day
      groupChatMessage({ userId: "30001", time: at(300) }),
      groupChatMessage({ userId: "30002", time: at(90) }),
      groupChatMessage({ userId: "30001", time: at(30) }),
      groupChatMessage({ userId: SELF, fromSelf: true, time: at(29) }),
      groupChatMessage({ userId: "30003", time: at(5) }),
      groupChatMessage({ userId: "30001", time: at(3), groupId: OTHER_GROUP }),
      groupChatMessage({
        userId: "30001",
        time: at(1),
        chatType: "private",
        groupId: undefined,
        sessionId: `onebot:${SELF}:private:30001`,
      }),
    ]) {
      stores.messages.append(message);
    }
    // Read through the store's own queue: nothing was flushed before.
    const groups = await stores.groups.activity(NOW, 50);
    /** The last 24 hours, oldest first: `slots` maps hours ago to that hour's counts. */
    const hourly = (slots: Record<number, { messages: number; bot: number }>) =>
      Array.from({ length: 24 }, (_, index) => slots[23 - index] ?? { messages: 0, bot: 0 });
    expect(groups).toEqual([
      {
        sessionId: OTHER_CHAT,
        platform: "onebot",
        selfId: SELF,
        groupId: OTHER_GROUP,
        messagesLastHour: 1,
        messagesLastDay: 1,
        botMessagesLastDay: 0,
        activeMembersLastDay: 1,
        lastMessageAt: at(3),
        hourly: hourly({ 0: { messages: 1, bot: 0 } }),
      },
      {
        sessionId: GROUP_CHAT,
        platform: "onebot",
        selfId: SELF,
        groupId: "20000",
        messagesLastHour: 3,
        messagesLastDay: 5,
        botMessagesLastDay: 1,
        activeMembersLastDay: 3,
        lastMessageAt: at(5),
        // 300 minutes ago is in the hour 5 hours back, 90 in the one before the last.
        hourly: hourly({
          0: { messages: 3, bot: 1 },
          1: { messages: 1, bot: 0 },
          5: { messages: 1, bot: 0 },
        }),
      },
    ]);
    expect(await stores.groups.activity(NOW, 1)).toHaveLength(1);
  });

  it("keeps learned expressions per group across a restart; edits, deletions and forgetting", async () => {
    expect(await stores.groups.replaceLearned(GROUP_CHAT, [said("草"), said("绝绝子")], 0, NOW)).toBe(true);
    expect(await stores.groups.replaceLearned(OTHER_CHAT, [said("典")], 0, NOW)).toBe(true);
    const url = backend.urlOf(stores);
    await stores.close();
    stores = await backend.open(url);

    const [grass, slang] = await stores.groups.expressions(GROUP_CHAT);
    expect([grass, slang].map((entry) => entry?.expression)).toEqual(["草", "绝绝子"]);
    expect(grass).toMatchObject({
      sessionId: GROUP_CHAT,
      meaning: "草 means",
      example: "草!",
      updatedAt: NOW,
    });

    const edited = await stores.groups.edit(GROUP_CHAT, grass!.id, said("草草"), NOW + 1);
    expect(edited).toMatchObject({ id: grass!.id, expression: "草草", updatedAt: NOW + 1 });
    // An id of another group is not this group's to change.
    expect(await stores.groups.edit(OTHER_CHAT, grass!.id, said("x"), NOW + 1)).toBeUndefined();
    expect(await stores.groups.delete(GROUP_CHAT, slang!.id, NOW + 2)).toBe(true);
    expect(await stores.groups.delete(GROUP_CHAT, slang!.id, NOW + 2)).toBe(false);
    expect((await stores.groups.expressions(GROUP_CHAT)).map((entry) => entry.expression)).toEqual(["草草"]);

    // A pass that read the list before the edit does not overwrite it.
    expect(await stores.groups.replaceLearned(GROUP_CHAT, [said("新")], 0, NOW + 3)).toBe(false);
    const progress = await stores.groups.progress(GROUP_CHAT);
    expect(progress.editedAt).toBe(NOW + 2);
    expect(await stores.groups.replaceLearned(GROUP_CHAT, [said("新")], progress.editedAt, NOW + 3)).toBe(
      true,
    );

    expect(await stores.groups.forget(GROUP_CHAT, NOW + 4)).toBe(1);
    expect(await stores.groups.expressions(GROUP_CHAT)).toEqual([]);
    expect(await stores.groups.progress(GROUP_CHAT)).toMatchObject({
      forgottenAt: NOW + 4,
      editedAt: NOW + 4,
    });
    expect((await stores.groups.expressions(OTHER_CHAT)).map((entry) => entry.expression)).toEqual(["典"]);
  });

  it("counts learning passes per day, starting again on a new day", async () => {
    await stores.groups.countPass(GROUP_CHAT, "2027-01-01");
    await stores.groups.countPass(GROUP_CHAT, "2027-01-01");
    expect(await stores.groups.progress(GROUP_CHAT)).toMatchObject({ day: "2027-01-01", passes: 2 });
    await stores.groups.countPass(GROUP_CHAT, "2027-01-02");
    expect(await stores.groups.progress(GROUP_CHAT)).toMatchObject({ day: "2027-01-02", passes: 1 });
    expect(await stores.groups.progress(OTHER_CHAT)).toEqual({
      day: "",
      passes: 0,
      editedAt: 0,
      forgottenAt: 0,
    });
  });
});
