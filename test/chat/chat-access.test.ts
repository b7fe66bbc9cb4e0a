import { describe, expect, it } from "vitest";
import { accessDenial } from "../../src/chat/chat-access.ts";
import type { AccessSettings } from "../../src/chat/config.ts";
import { validateConfig } from "../../src/config/validate.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { groupMessage } from "../support/store.ts";

const open: AccessSettings = { privateChats: true, allow: [], deny: [] };
const inGroup = (groupId: string, userId: string, adapterId = "qq"): ChatMessage =>
  groupMessage({ groupId, userId, adapterId, sessionId: `onebot:10000:group:${groupId}` });
const inPrivate = (userId: string, platform = "onebot"): ChatMessage =>
  groupMessage({
    platform,
    chatType: "private",
    groupId: undefined,
    userId,
    sessionId: `${platform}:10000:private:${userId}`,
  });

describe("access rules", () => {
  it("answers everyone when there are no rules", () => {
    expect(accessDenial(inGroup("1", "2"), open)).toBeUndefined();
    expect(accessDenial(inPrivate("2"), open)).toBeUndefined();
  });

  it("names the deny rule that matched, for groups, users and adapters", () => {
    const settings = { ...open, deny: ["group:1", "user:9", "onebot.backup"] };
    expect(accessDenial(inGroup("1", "2"), settings)).toBe("access.deny: group:1");
    expect(accessDenial(inGroup("3", "9"), settings)).toBe("access.deny: user:9");
    expect(accessDenial(inPrivate("9"), settings)).toBe("access.deny: user:9");
    expect(accessDenial(inGroup("3", "2", "backup"), settings)).toBe("access.deny: onebot.backup");
    expect(accessDenial(inGroup("3", "2"), settings)).toBeUndefined();
  });

  it("answers what an allow list names: the group, the sender or the adapter", () => {
    const settings = { ...open, allow: ["group:1", "user:7", "onebot.trusted"] };
    expect(accessDenial(inGroup("1", "2"), settings)).toBeUndefined();
    expect(accessDenial(inGroup("5", "7"), settings)).toBeUndefined();
    expect(accessDenial(inPrivate("7"), settings)).toBeUndefined();
    expect(accessDenial(inGroup("5", "2", "trusted"), settings)).toBeUndefined();
    expect(accessDenial(inGroup("5", "2"), settings)).toBe("access.allow");
    expect(accessDenial(inPrivate("2"), settings)).toBe("access.allow");
  });

  it("lets deny win over allow", () => {
    const settings = { ...open, allow: ["group:1"], deny: ["user:2"] };
    expect(accessDenial(inGroup("1", "2"), settings)).toBe("access.deny: user:2");
  });

  it("turns private chats off as a whole", () => {
    const settings = { ...open, privateChats: false, allow: ["user:2"] };
    expect(accessDenial(inPrivate("2"), settings)).toBe("access.privateChats");
    expect(accessDenial(inGroup("1", "2"), settings)).toBeUndefined();
  });

  it("keeps platforms apart: a bare group or user is QQ's, a stdio channel's ids need stdio:", () => {
    const settings = { ...open, deny: ["user:2"] };
    expect(accessDenial(inPrivate("2", "stdio"), settings)).toBeUndefined();
    expect(accessDenial(inPrivate("2", "stdio"), { ...open, deny: ["stdio:user:2"] })).toBe(
      "access.deny: stdio:user:2",
    );
    expect(accessDenial(inPrivate("2"), { ...open, deny: ["onebot.qq:user:2"] })).toBe(
      "access.deny: onebot.qq:user:2",
    );
    expect(accessDenial(inPrivate("2"), { ...open, deny: ["onebot.other:user:2"] })).toBeUndefined();
  });

  it("narrows a stdio rule to one channel plugin with stdio.<pluginId>", () => {
    const fromChannel = (pluginId: string, userId: string, chatId = "c1"): ChatMessage =>
      groupMessage({
        platform: "stdio",
        adapterId: "stdio",
        selfId: pluginId,
        groupId: chatId,
        userId,
        sessionId: `stdio:${pluginId}:${chatId}`,
      });
    const deny = { ...open, deny: ["stdio.webchat:user:2", "stdio.webchat:group:g9", "stdio.spam"] };
    expect(accessDenial(fromChannel("webchat", "2"), deny)).toBe("access.deny: stdio.webchat:user:2");
    expect(accessDenial(fromChannel("other", "2"), deny)).toBeUndefined();
    expect(accessDenial(fromChannel("webchat", "3", "g9"), deny)).toBe("access.deny: stdio.webchat:group:g9");
    expect(accessDenial(fromChannel("spam", "3"), deny)).toBe("access.deny: stdio.spam");
    expect(accessDenial(inGroup("1", "2", "webchat"), deny)).toBeUndefined();

    const allow = { ...open, allow: ["stdio.webchat"] };
    expect(accessDenial(fromChannel("webchat", "3"), allow)).toBeUndefined();
    expect(accessDenial(fromChannel("other", "3"), allow)).toBe("access.allow");
    expect(accessDenial(inGroup("1", "3", "webchat"), allow)).toBe("access.allow");
  });

  it("always answers the console playground, the operator's own chat", () => {
    const settings = { privateChats: false, allow: ["group:1"], deny: ["user:2"] };
    expect(accessDenial(inPrivate("2", "console"), settings)).toBeUndefined();
  });

  it("rejects a malformed rule in the config with the forms it may take", () => {
    const validate = validateConfig;
    const good = validate({
      access: {
        allow: ["group:1", "onebot.qq:user:-5", "stdio", "onebot", "stdio.webchat", "stdio.webchat:user:a:b"],
      },
    });
    expect(good.ok).toBe(true);
    const bad = validate({
      access: { deny: ["20000", "qq:group:1", "group:", "stdio.", "stdio.Web:user:1"] },
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems).toHaveLength(5);
    expect(bad.problems[0]).toMatch(/^access\.deny\[0\]: must be "group:<id>", "user:<id>"/);
  });
});
