import { describe, expect, it } from "vitest";
import type { ChatAdapter, GroupMember } from "../../src/adapters/types.ts";
import { GroupStanding } from "../../src/manage/group-standing.ts";
import { ALICE, BOB, GROUP, groupChatMessage, SELF } from "../support/messages.ts";
import { captureLog } from "../support/store.ts";

/** An adapter whose platform answers roles from a table (or fails), counting the lookups. */
function adapterWith(roles: Record<string, GroupMember["role"] | "fail">) {
  const lookups: string[] = [];
  const adapter = {
    id: "qq",
    platform: "onebot",
    groups: {
      async member(_selfId: string, _groupId: string, userId: string) {
        lookups.push(userId);
        const role = roles[userId];
        if (role === "fail") throw new Error("timeout");
        return role === undefined ? undefined : { role, name: `user${userId}` };
      },
    },
  } as unknown as ChatAdapter;
  return { adapters: new Map([["qq", adapter]]), lookups, roles };
}

describe("who may have a group managed", () => {
  const place = { platform: "onebot", adapterId: "qq", selfId: SELF, groupId: GROUP };

  it("takes the role the event carried, and asks the platform only when the event had none", async () => {
    const { adapters, lookups } = adapterWith({ [ALICE]: "admin", [BOB]: "member" });
    const standing = new GroupStanding({ adapters, admins: () => [], logger: captureLog().logger });
    expect(await standing.mayManage(groupChatMessage({ userId: BOB, senderRole: "owner" }))).toBe(true);
    expect(await standing.mayManage(groupChatMessage({ userId: ALICE, senderRole: "member" }))).toBe(false);
    expect(lookups).toEqual([]);
    expect(await standing.mayManage(groupChatMessage({ userId: ALICE }))).toBe(true);
    expect(await standing.mayManage(groupChatMessage({ userId: BOB }))).toBe(false);
    expect(lookups).toEqual([ALICE, BOB]);
  });

  it("lets bot.admins ask anywhere, never by what a message says", async () => {
    const { adapters } = adapterWith({ [BOB]: "member" });
    const standing = new GroupStanding({ adapters, admins: () => [BOB], logger: captureLog().logger });
    expect(await standing.mayManage(groupChatMessage({ userId: BOB, senderRole: "member" }))).toBe(true);
    const claim = groupChatMessage({
      userId: ALICE,
      senderRole: "member",
      text: "我是群主 我是管理员 admin",
    });
    expect(await standing.mayManage(claim)).toBe(false);
    // Private chats have no group roles: only bot.admins.
    expect(await standing.mayManage({ ...claim, chatType: "private", groupId: undefined })).toBe(false);
  });

  it("caches the bot's own role for minutes; a failed read counts as no admin and is retried after half a minute", async () => {
    let now = 1_000_000;
    const { adapters, lookups, roles } = adapterWith({ [SELF]: "admin", [ALICE]: "fail" });
    const log = captureLog();
    const standing = new GroupStanding({ adapters, admins: () => [], logger: log.logger, now: () => now });
    expect(await standing.botIsAdmin(place)).toBe(true);
    roles[SELF] = "member";
    now += 60_000;
    expect(await standing.botIsAdmin(place)).toBe(true);
    now += 5 * 60_000;
    expect(await standing.botIsAdmin(place)).toBe(false);
    expect(lookups.filter((id) => id === SELF)).toHaveLength(2);

    expect(await standing.mayManage(groupChatMessage({ userId: ALICE }))).toBe(false);
    roles[ALICE] = "admin";
    expect(await standing.mayManage(groupChatMessage({ userId: ALICE }))).toBe(false);
    now += 30_000;
    expect(await standing.mayManage(groupChatMessage({ userId: ALICE }))).toBe(true);
    expect(log.lines.some((line) => String(line.msg).includes("counted as not an admin"))).toBe(true);
  });

  it("has nothing to manage with on an adapter that declares no group actions", async () => {
    const adapter = { id: "qq", platform: "onebot" } as unknown as ChatAdapter;
    const standing = new GroupStanding({
      adapters: new Map([["qq", adapter]]),
      admins: () => [],
      logger: captureLog().logger,
    });
    expect(standing.actionsOf(place)).toBeUndefined();
    expect(await standing.botIsAdmin(place)).toBe(false);
  });
});
