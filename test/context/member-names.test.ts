import { describe, expect, it } from "vitest";
import { MAX_CACHED_NAMES, MAX_LOOKUPS_PER_TURN, MemberNames } from "../../src/context/member-names.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { groupChatMessage } from "../support/messages.ts";

const logger = createLogger({ level: "silent" });

function mentioning(...userIds: string[]): ChatMessage {
  return groupChatMessage({ segments: userIds.map((qq) => ({ type: "at" as const, data: { qq } })) });
}

/** A platform that names member N "成员N" and counts what it was asked. */
function platform() {
  const asked: string[] = [];
  const names = new MemberNames({
    lookupFor: () => async (_groupId, userId) => {
      asked.push(userId);
      if (userId === "404") throw new Error("群成员不存在");
      return { user_id: Number(userId), nickname: `nick${userId}`, card: `成员${userId}` };
    },
    logger,
  });
  return { asked, names };
}

describe("MemberNames", () => {
  it("names a member from the chat first, then asks the platform once and remembers the answer", async () => {
    const { asked, names } = platform();
    const seen = groupChatMessage({ userId: "501", senderName: "张三", segments: [] });
    const nameOf = await names.namesFor([mentioning("501", "502", "404")], [seen]);
    expect([nameOf("501"), nameOf("502"), nameOf("404")]).toEqual(["张三", "成员502", undefined]);
    const again = await names.namesFor([mentioning("502", "404")], []);
    expect(again("502")).toBe("成员502");
    expect(asked).toEqual(["502", "404"]);
  });

  it("asks about at most MAX_LOOKUPS_PER_TURN members a turn, and keeps at most MAX_CACHED_NAMES", async () => {
    const { asked, names } = platform();
    const many = Array.from({ length: MAX_LOOKUPS_PER_TURN + 5 }, (_, i) => String(1000 + i));
    await names.namesFor([mentioning(...many)], []);
    expect(asked).toHaveLength(MAX_LOOKUPS_PER_TURN);

    for (let start = 0; start <= MAX_CACHED_NAMES; start += MAX_LOOKUPS_PER_TURN) {
      const batch = Array.from({ length: MAX_LOOKUPS_PER_TURN }, (_, i) => String(50_000 + start + i));
      await names.namesFor([mentioning(...batch)], []);
    }
    asked.length = 0;
    // The first members cached were dropped to make room, the last are still known.
    await names.namesFor([mentioning("50000", String(50_000 + MAX_CACHED_NAMES))], []);
    expect(asked).toEqual(["50000"]);
  });
});
