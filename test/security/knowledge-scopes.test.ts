/**
 * A stdio channel plugin names its own chats: one choosing the chat id `group:<n>` read the
 * documents scoped to QQ group `<n>`. A scope's bare group number names a QQ group (OneBot or
 * the official API) only; another platform's group is named with its users' namespace, as
 * memory keys it (`stdio.webchat:5`).
 */
import { describe, expect, it } from "vitest";
import { admits } from "../../src/knowledge/scope.ts";
import type { KnowledgeScope } from "../../src/store/knowledge-types.ts";

const groups = (...names: string[]): KnowledgeScope => ({
  chats: "groups",
  groups: names,
  autoRetrieve: true,
});

describe("knowledge scopes keyed by platform", () => {
  it("gives a QQ group's documents to that QQ group only, not to a channel's chat of the same number", () => {
    const qqGroup = groups("123456");
    expect(admits(qqGroup, "onebot:10000:group:123456")).toBe(true);
    expect(admits(qqGroup, "qq-official:bot:group:123456")).toBe(true);
    expect(admits(qqGroup, "stdio:webchat:group:123456")).toBe(false);
    expect(admits(qqGroup, "console:console:group:123456")).toBe(false);
    expect(admits(qqGroup, "onebot:10000:private:123456")).toBe(false);
  });

  it("names a channel's group with the channel, and that entry admits no other channel or QQ", () => {
    const webchat = groups("stdio.webchat:123456");
    expect(admits(webchat, "stdio:webchat:group:123456")).toBe(true);
    expect(admits(webchat, "stdio:otherchat:group:123456")).toBe(false);
    expect(admits(webchat, "onebot:10000:group:123456")).toBe(false);
    expect(admits(groups("onebot:123456"), "onebot:10000:group:123456")).toBe(true);
    expect(admits(groups("onebot:123456"), "qq-official:bot:group:123456")).toBe(false);
  });

  it("keeps all-chat and private scopes as they were", () => {
    expect(admits({ chats: "all", groups: [], autoRetrieve: true }, "stdio:webchat:group:1")).toBe(true);
    expect(admits({ chats: "private", groups: [], autoRetrieve: true }, "stdio:webchat:private:alice")).toBe(
      true,
    );
    expect(admits({ chats: "private", groups: [], autoRetrieve: true }, "stdio:webchat:group:1")).toBe(false);
  });
});
