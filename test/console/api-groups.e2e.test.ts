import { afterEach, describe, expect, it } from "vitest";
import type { GroupExpressionsAnswer, GroupsAnswer } from "../../src/api/types.ts";
import { apiClient } from "../support/api-client.ts";
import { ALICE, BOB, GROUP, groupSession, mention, OTHER_GROUP, plain } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { RecordedLlmRequest } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

const LEARNED = {
  expressions: [
    { expression: "绝绝子", meaning: "夸东西特别好", example: "这奶茶绝绝子" },
    { expression: "蚌埠住了", meaning: "忍不住笑了", example: "看到这个我蚌埠住了" },
  ],
};

/** The request's system prompt: where the group's way of talking belongs (the cached prefix). */
const systemOf = (request: RecordedLlmRequest | undefined) =>
  String(request?.body.messages[0]?.content ?? "");

describe("the Groups page's API and groups' learned expressions, over the real wire", () => {
  let scene: Scene | undefined;
  afterEach(async () => {
    await scene?.close();
    scene = undefined;
  });

  it("lists the bot's groups with their activity, the bot's share and the names from the group list", async () => {
    scene = await startScene();
    const { qq, llm, bot } = scene;
    qq.setGroups([
      { groupId: GROUP, name: "开黑群", memberCount: 42 },
      { groupId: "20009", name: "安静群", memberCount: 7 },
    ]);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("今晚打吗") });
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: plain("打") });
    qq.pushGroupMessage({ groupId: OTHER_GROUP, userId: ALICE, message: plain("在吗") });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "我也来" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("你来吗") });
    await qq.waitForSent((sent) => sent.text === "我也来", 8_000);
    await bot.turnFinished();

    const api = apiClient(bot.baseUrl);
    let groups: GroupsAnswer["groups"] = [];
    await waitFor(
      async () => {
        groups = ((await api.get<GroupsAnswer>("/api/groups")).body as GroupsAnswer).groups;
        return groups.find((group) => group.groupId === GROUP)?.messagesLastDay === 4;
      },
      5_000,
      "the group's four messages counted",
    );
    const lastMessageAt = groups[0]?.lastMessageAt ?? 0;
    expect(Math.abs(Date.now() - lastMessageAt)).toBeLessThan(60_000);
    expect(groups).toEqual([
      {
        sessionId: groupSession(GROUP),
        platform: "onebot",
        selfId: "10000",
        groupId: GROUP,
        name: "开黑群",
        memberCount: 42,
        listed: true,
        messagesLastHour: 4,
        messagesLastDay: 4,
        botMessagesLastDay: 1,
        activeMembersLastDay: 2,
        botShare: 0.25,
        lastMessageAt,
        // The day hour by hour, oldest first: all four in the latest hour, one of them the bot's.
        hourly: [...hours(23), { messages: 4, bot: 1 }],
      },
      expect.objectContaining({
        groupId: OTHER_GROUP,
        name: null,
        listed: false,
        messagesLastDay: 1,
        botShare: 0,
        activeMembersLastDay: 1,
      }),
      {
        sessionId: groupSession("20009"),
        platform: "onebot",
        selfId: "10000",
        groupId: "20009",
        name: "安静群",
        memberCount: 7,
        listed: true,
        messagesLastHour: 0,
        messagesLastDay: 0,
        botMessagesLastDay: 0,
        activeMembersLastDay: 0,
        botShare: 0,
        lastMessageAt: null,
        hourly: hours(24),
      },
    ]);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("learns a group's expressions, shows and edits them, puts them in the prompts, and /forget group clears them", async () => {
    scene = await startScene({
      config: {
        bot: { admins: [ALICE] },
        chat: { expressions: { enabled: true, learnEvery: 3, maxLearnCallsPerDay: 1 } },
        llm: { models: { expressions: ["main/expressions-model"] } },
      },
    });
    const { qq, llm, bot } = scene;
    const api = apiClient(bot.baseUrl);
    const session = groupSession(GROUP);
    llm.enqueue({ text: `好的：\n${JSON.stringify(LEARNED)}` });
    for (const text of ["这奶茶绝绝子", "蚌埠住了哈哈", "绝绝子+1"])
      qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: plain(text) });
    await bot.waitForEvent("expressions.learned");

    const learning = llm.requests[0]!;
    expect(learning.body.model).toBe("expressions-model");
    expect(learning.promptText).toContain("这奶茶绝绝子");
    expect(learning.promptText).toContain("绝绝子+1");
    const shown = (await api.get<GroupExpressionsAnswer>(`/api/groups/expressions?sessionId=${session}`))
      .body;
    expect(
      shown.expressions.map(({ expression, meaning, example }) => ({ expression, meaning, example })),
    ).toEqual(LEARNED.expressions);

    // The day's one pass is used: three more messages call no model.
    for (const text of ["a", "b", "c"])
      qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: plain(text) });
    await bot.waitForLog(
      (line) => line.msg === "expressions not learned: the group's passes for today are used up",
    );

    // Edited and deleted in the console.
    const [slang, laugh] = shown.expressions;
    const edited = await api.request("PATCH", `/api/groups/expressions/${slang!.id}`, {
      sessionId: session,
      expression: "绝绝子",
      meaning: "夸东西好到极点",
      example: "这奶茶绝绝子",
    });
    expect(edited.status).toBe(200);
    expect(
      (await api.request("DELETE", `/api/groups/expressions/${laugh!.id}?sessionId=${session}`)).status,
    ).toBe(200);
    expect(
      (await api.request("DELETE", `/api/groups/expressions/${laugh!.id}?sessionId=${session}`)).status,
    ).toBe(404);
    const bad = await api.request("PATCH", `/api/groups/expressions/${slang!.id}`, { sessionId: session });
    expect(bad.status).toBe(400);

    // Both the planner and the replyer read it in their system prompts; the replyer also reads
    // what the bot said here before, as what not to repeat.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "今天也绝绝子" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("夸夸我") });
    await qq.waitForSent((sent) => sent.text === "今天也绝绝子", 8_000);
    expect(systemOf(llm.lastRequestWithTool("reply"))).toContain(
      "「绝绝子」：夸东西好到极点（例：「这奶茶绝绝子」）",
    );
    expect(systemOf(llm.lastRequestWithoutTool("reply"))).toContain("「绝绝子」：夸东西好到极点");
    expect(systemOf(llm.lastRequestWithoutTool("reply"))).not.toContain("蚌埠住了");
    await bot.turnFinished(1);

    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "换个说法" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("再夸") });
    await qq.waitForSent((sent) => sent.text === "换个说法", 8_000);
    const replyer = llm.lastRequestWithoutTool("reply")!;
    expect(replyer.promptText).toContain(
      "## 你最近在这里说过的话（不要再说一遍，也不要用同样的措辞）\n- 今天也绝绝子",
    );
    await bot.turnFinished(2);

    // An admin's /forget group forgets them with the group's memories; the prompts lose them.
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("/forget group") });
    await qq.waitForSent((sent) => sent.text === "已忘记关于本群的 0 条记忆和 1 条群里的说法。", 8_000);
    const after = (await api.get<GroupExpressionsAnswer>(`/api/groups/expressions?sessionId=${session}`))
      .body;
    expect(after.expressions).toEqual([]);
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "够了" } }] });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("还记得吗") });
    await bot.turnFinished(3);
    expect(systemOf(llm.lastRequestWithTool("reply"))).not.toContain("绝绝子");
    expect(llm.unscriptedRequests).toEqual([]);
  });
});

/** `count` quiet hours. */
function hours(count: number): Array<{ messages: number; bot: number }> {
  return Array.from({ length: count }, () => ({ messages: 0, bot: 0 }));
}
