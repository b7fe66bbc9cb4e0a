/**
 * Participation as the console sees and drives it (GET /api/participation, POST
 * /api/participation/quiet, the timeline's `participation.decided` events), and the schedule.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { chatScenes } from "../support/chat-scene.ts";
import { ALICE, GROUP, groupSession, plain } from "../support/messages.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";

/** A model that always wants to talk. */
const chatty = () =>
  ScriptedLlmServer.start({
    whenEmpty: (request) =>
      request.toolNames.includes("reply")
        ? { toolCalls: [{ name: "reply", arguments: {} }] }
        : { text: `说点什么 ${request.index}` },
  });

describe("participation in the console", () => {
  const start = chatScenes();

  it("lists each chat's state and last decision, and switches quiet on and off", async () => {
    const llm = await chatty();
    const { bot, qq, expectReply, expectNoReply } = await start({
      llm,
      config: { chat: { participation: { talkValue: 1, minGapMs: 0, settleMs: 0 } } },
    });
    const api = apiClient(bot.baseUrl);
    const said = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("周末干嘛") });
    await expectReply(/^说点什么/);

    const listed = await api.get("/api/participation");
    expect(listed.status).toBe(200);
    expect(listed.body.chats).toEqual([
      {
        sessionId: groupSession(),
        groupId: GROUP,
        talkValue: 1,
        quietUntil: null,
        unaskedLastHour: 1,
        lastDecision: expect.objectContaining({ joined: true, messageId: said }),
      },
    ]);

    const quiet = await api.post("/api/participation/quiet", { chat: GROUP, minutes: 10 });
    expect(quiet.status).toBe(200);
    expect(quiet.body.sessions).toEqual([groupSession()]);
    expect(quiet.body.quietUntil).toBeGreaterThan(Date.now() + 9 * 60_000);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("那去爬山") });
    await expectNoReply(600);
    const held = await api.get("/api/participation");
    expect(held.body.chats[0].lastDecision).toEqual(
      expect.objectContaining({ joined: false, rule: "quiet" }),
    );

    expect(
      (await api.post("/api/participation/quiet", { chat: groupSession(), minutes: 0 })).body.quietUntil,
    ).toBe(null);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("山上凉快") });
    await expectReply(/^说点什么/);

    expect((await api.post("/api/participation/quiet", { chat: "99999", minutes: 5 })).status).toBe(404);
    expect((await api.post("/api/participation/quiet", { chat: GROUP, minutes: -1 })).status).toBe(400);
  });

  it("sets one group's talkValue from the console: written to the config file, in force at once", async () => {
    const llm = await chatty();
    const { bot, qq, expectReply, expectNoReply } = await start({
      llm,
      configFile: true,
      config: { chat: { participation: { talkValue: 0, minGapMs: 0, settleMs: 0 } } },
    });
    const api = apiClient(bot.baseUrl);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("周末干嘛") });
    await expectNoReply(600);

    const set = await api.post("/api/participation/talk-value", { group: GROUP, talkValue: 1 });
    expect(set.status).toBe(200);
    expect(readFileSync(bot.configFile!, "utf8")).toMatch(
      new RegExp(`"?${GROUP}"?:\\s*\\n\\s+participation:\\s*\\n\\s+talkValue: 1`),
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("那去爬山") });
    await expectReply(/^说点什么/);

    expect((await api.post("/api/participation/talk-value", { group: GROUP, talkValue: 2 })).status).toBe(
      400,
    );
    expect((await api.post("/api/participation/talk-value", { group: "a b", talkValue: 0.5 })).status).toBe(
      400,
    );
  });

  it("answers only with the token when server.token is set", async () => {
    const { bot } = await start({ config: { server: { token: "secret-token" } } });
    expect((await apiClient(bot.baseUrl).get("/api/participation")).status).toBe(401);
    expect((await apiClient(bot.baseUrl, "secret-token").get("/api/participation")).status).toBe(200);
  });

  it("follows the schedule in chat.timezone: a period with talkValue 0 keeps the bot out", async () => {
    const llm = await chatty();
    const { bot, qq, expectNoReply } = await start({
      llm,
      config: {
        chat: {
          timezone: "Asia/Shanghai",
          participation: {
            talkValue: 1,
            settleMs: 0,
            // Two periods covering the whole day, the second over midnight.
            schedule: [
              { from: "00:00", to: "12:00", talkValue: 0 },
              { from: "12:00", to: "00:00", talkValue: 0 },
            ],
          },
        },
      },
    });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("有人吗？") });
    await expectNoReply(600);
    expect(llm.requests).toEqual([]);
    const decided = bot.events.filter((event) => event.type === "participation.decided");
    expect(decided.map((event) => event.data.rule)).toEqual(["schedule"]);
    expect((await apiClient(bot.baseUrl).get("/api/participation")).body.chats[0].talkValue).toBe(0);
  });
});

describe("the gate model", () => {
  const start = chatScenes();

  it("is asked yes or no before an unasked turn: no keeps the planner from running at all", async () => {
    const llm = await ScriptedLlmServer.start();
    const { bot, qq, expectReply, expectNoReply } = await start({
      llm,
      config: {
        llm: { models: { gate: ["main/scripted-model"] } },
        chat: { participation: { talkValue: 1, minGapMs: 0, settleMs: 0 } },
      },
    });
    llm.enqueue({ text: "否" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("今天好累") });
    await expectNoReply(600);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.promptText).toContain("今天好累");
    const decided = bot.events.filter((event) => event.type === "participation.decided");
    expect(decided.map((event) => [event.data.joined, event.data.rule ?? null])).toEqual([
      [true, null],
      [false, "gate model"],
    ]);

    llm.enqueue({ text: "是" }, { toolCalls: [{ name: "reply", arguments: {} }] }, { text: "辛苦啦" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("加班到现在") });
    await expectReply("辛苦啦");
    expect(llm.requests).toHaveLength(4);
  });
});
