import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { openSse } from "../support/sse-client.ts";

const TOKEN = "playground-token";
const BOT = "10000";
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const say = (text: string) => ({
  chatType: "group",
  groupId: "20000",
  userId: "30001",
  senderName: "Alice",
  segments: [
    { type: "at", data: { qq: BOT, name: "紬" } },
    { type: "text", data: { text: ` ${text}` } },
  ],
});

describe("playground, timeline and chats through the API", () => {
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let api: ApiClient;

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start();
    bot = await startBot({ llm, config: { server: { token: TOKEN } } });
    api = apiClient(bot.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await bot.dispose();
    await llm.close();
  });

  it("answers a playground message through the pipeline and pushes the reply to the page", async () => {
    const info = await api.get("/api/playground");
    expect(info.body).toEqual({ selfId: BOT, botName: "紬", modelConfigured: true });

    const stream = await openSse(`${bot.baseUrl}/api/playground/stream`, {
      authorization: `Bearer ${TOKEN}`,
    });
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { set_quote: true } }] },
      { text: "你好呀，Alice" },
    );
    const posted = await api.post("/api/playground/messages", say("你好"));
    expect(posted.status).toBe(201);
    const asked = posted.body.message;
    expect(asked.sessionId).toBe(`console:${BOT}:group:20000`);

    const reply = (await stream.waitFor((_e, data) => (data as { fromSelf: boolean }).fromSelf)) as {
      segments: unknown[];
      senderName: string;
    };
    stream.close();
    expect(reply.senderName).toBe("紬");
    expect(reply.segments).toEqual([
      { type: "reply", data: { id: asked.messageId } },
      { type: "text", data: { text: "你好呀，Alice" } },
    ]);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("Alice(30001): 你好");

    const history = await api.get("/api/playground/messages?chatType=group&peerId=20000");
    expect(history.body.messages.map((m: { fromSelf: boolean }) => m.fromSelf)).toEqual([false, true]);
  });

  it("lists the turn on the timeline with its trigger, planner round and what was sent", async () => {
    const turns = await api.get("/api/monitor/turns");
    const turn = turns.body.turns[0];
    expect(turn).toMatchObject({ sessionId: `console:${BOT}:group:20000`, status: "replied", rounds: 1 });

    const byPrefix = await api.get(`/api/monitor/turns?search=${turn.replyId.slice(0, 6)}`);
    expect(byPrefix.body.turns.map((t: { replyId: string }) => t.replyId)).toEqual([turn.replyId]);
    const none = await api.get("/api/monitor/turns?search=no-such-turn");
    expect(none.body.turns).toEqual([]);

    const detail = await api.get(`/api/monitor/turns/${turn.replyId}`);
    const types = detail.body.events.map((event: { type: string }) => event.type);
    expect(types).toEqual(
      expect.arrayContaining(["turn.started", "planner.round", "tool.called", "message.sent"]),
    );
    expect(types.at(-1)).toBe("turn.finished");
    const round = detail.body.events.find((event: { type: string }) => event.type === "planner.round");
    expect(round.data.model).toBe("main/scripted-model");
    expect(round.data.toolCalls[0].name).toBe("reply");
    expect(round.data.usage.promptTokens).toBeGreaterThan(0);
    expect(JSON.stringify(round.data.prompt)).toContain("你好");
    expect(detail.body.messages[0].segments.at(-1).data.text).toBe(" 你好");

    const events = await api.get(`/api/monitor/events?replyId=${turn.replyId}&limit=2`);
    expect(events.body.events).toHaveLength(2);
    expect(events.body.events[0].type).toBe("turn.finished"); // newest first

    expect((await api.get("/api/monitor/turns/not-a-turn")).status).toBe(404);
  });

  it("streams a silent turn's reason live", async () => {
    const stream = await openSse(`${bot.baseUrl}/api/monitor/stream`, { authorization: `Bearer ${TOKEN}` });
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "只是打招呼" } }] });
    await api.post("/api/playground/messages", say("在吗"));
    const finished = (await stream.waitFor((event, data) => {
      return event === "monitor" && (data as { type: string }).type === "turn.finished";
    })) as { data: { status: string; reason: string } };
    stream.close();
    expect(finished.data).toMatchObject({ status: "silent", reason: "no_reply: 只是打招呼" });
    // Untriggered chatter is history, not timeline.
    expect(
      stream.events.every((entry) => (entry.data as { data: { trigger?: unknown } }).data.trigger !== null),
    ).toBe(true);
  });

  it("quotes a message and carries pictures", async () => {
    const sent = await api.get("/api/playground/messages?chatType=group&peerId=20000");
    const botMessage = sent.body.messages.find((m: { fromSelf: boolean }) => m.fromSelf);
    const stream = await openSse(`${bot.baseUrl}/api/playground/stream`, {
      authorization: `Bearer ${TOKEN}`,
    });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "收到图片" });
    const posted = await api.post("/api/playground/messages", {
      ...say("看这张图"),
      segments: [
        { type: "reply", data: { id: botMessage.messageId } },
        { type: "text", data: { text: "看这张图" } },
        { type: "image", data: { file: `base64://${PNG_1PX}` } },
      ],
    });
    expect(posted.status).toBe(201);
    // Replying to the bot's own message triggers it, as on QQ.
    await stream.waitFor((_e, data) => JSON.stringify(data).includes("收到图片"));
    stream.close();
    const planner = llm.lastRequestWithTool("reply")!;
    expect(planner.promptText).toContain("看这张图");
    // The quote is fetched with get_msg from the console adapter, as from NapCat.
    expect(planner.promptText).toMatch(/\[引用 紬\([^)]*\) 于 [\d:]+ 的消息：你好呀，Alice/);
    expect(planner.promptText).toContain("[图片]");
  });

  it("rejects malformed playground messages", async () => {
    const noGroup = await api.post("/api/playground/messages", { ...say("x"), groupId: undefined });
    expect(noGroup.status).toBe(400);
    const remoteImage = await api.post("/api/playground/messages", {
      ...say("x"),
      segments: [{ type: "image", data: { file: "http://example.invalid/a.png" } }],
    });
    expect(remoteImage.status).toBe(400);
    const empty = await api.post("/api/playground/messages", { ...say("x"), segments: [] });
    expect(empty.status).toBe(400);
  });

  it("lists chats and searches their messages", async () => {
    const sessions = await api.get("/api/chats");
    expect(sessions.body.sessions[0]).toMatchObject({
      sessionId: `console:${BOT}:group:20000`,
      platform: "console",
      chatType: "group",
    });
    expect(sessions.body.sessions[0].messageCount).toBeGreaterThanOrEqual(5);
    const filtered = await api.get("/api/chats?search=private");
    expect(filtered.body.sessions).toEqual([]);

    const found = await api.get(
      `/api/chats/messages?sessionId=console:${BOT}:group:20000&search=${encodeURIComponent("图片")}`,
    );
    expect(found.body.messages.map((m: { senderName: string }) => m.senderName)).toEqual(["紬"]);
    const page = await api.get(`/api/chats/messages?sessionId=console:${BOT}:group:20000&limit=2`);
    expect(page.body.messages).toHaveLength(2);
    const older = await api.get(
      `/api/chats/messages?sessionId=console:${BOT}:group:20000&limit=2&before=${page.body.messages[1].rowId}`,
    );
    expect(older.body.messages[0].rowId).toBeLessThan(page.body.messages[1].rowId);
  });
});
