import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, apiClient } from "../support/api-client.ts";
import { ALICE, BOB, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { openSse } from "../support/sse-client.ts";

const TOKEN = "timeline-token";

interface ListedTurn {
  id: number;
  replyId: string;
  status?: string;
  reason?: string;
  triggerText?: string;
  replyText?: string;
}

interface ShownEvent {
  id: number;
  type: string;
  replyId?: string;
  data: Record<string, unknown>;
}

describe("the timeline over the API reads like the conversation", () => {
  let scene: Scene;
  let api: ApiClient;

  beforeAll(async () => {
    scene = await startScene({ config: { server: { token: TOKEN } } });
    api = apiClient(scene.bot.baseUrl, TOKEN);
  });
  afterAll(() => scene.close());

  /** Pushes a group message that mentions the bot and returns the turn it started, once finished. */
  async function turnFor(text: string, nickname = "Alice", userId = ALICE): Promise<ListedTurn> {
    const before = scene.bot.events.filter((event) => event.type === "turn.finished").length;
    scene.qq.pushGroupMessage({ groupId: GROUP, userId, nickname, message: mention(text) });
    const finished = await scene.bot.turnFinished(before + 1);
    const turns = (await api.get("/api/monitor/turns")).body.turns as ListedTurn[];
    return turns.find((turn) => turn.replyId === finished.replyId)!;
  }

  it("lists each turn with who said what to start it and the text it sent", async () => {
    scene.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "吃面吧，楼下那家不错" });
    const replied = await turnFor("今天中午吃什么？");
    expect(replied).toMatchObject({
      status: "replied",
      triggerText: "Alice: 今天中午吃什么？",
      replyText: "吃面吧，楼下那家不错",
    });

    scene.llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "只是在闲聊" } }] });
    const silent = await turnFor("哈哈哈", "Bob", BOB);
    expect(silent).toMatchObject({
      status: "silent",
      triggerText: "Bob: 哈哈哈",
      reason: "no_reply: 只是在闲聊",
    });
    expect(silent.replyText).toBeUndefined();
  });

  it("clips long texts on the server so a page of turns stays small", async () => {
    const long = "很长的消息".repeat(200);
    scene.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好的".repeat(400) });
    const turn = await turnFor(long);
    expect(turn.triggerText!.length).toBeLessThanOrEqual(201);
    expect(turn.triggerText).toMatch(/^Alice: 很长的消息.*…$/);
    expect(turn.replyText!.length).toBeLessThanOrEqual(301);
    expect(turn.replyText!.endsWith("…")).toBe(true);
  });

  it("records the replyer call as its own event with model, latency and tokens", async () => {
    scene.llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "收到", usage: { promptTokens: 321, completionTokens: 7 } },
    );
    const turn = await turnFor("在吗？");
    const detail = await api.get(`/api/monitor/turns/${turn.replyId}`);
    const events = detail.body.events as ShownEvent[];
    const replyer = events.find((event) => event.type === "replyer.generated")!;
    expect(replyer.data).toMatchObject({
      model: "main/scripted-model",
      provider: "main",
      usage: { promptTokens: 321, completionTokens: 7 },
      text: "收到",
    });
    expect(replyer.data.latencyMs).toEqual(expect.any(Number));
    expect(JSON.stringify(replyer.data.prompt)).toContain("在吗？");
    // Written after the planner chose to reply, before anything was sent.
    const types = events.map((event) => event.type);
    expect(types.indexOf("planner.round")).toBeLessThan(types.indexOf("replyer.generated"));
    expect(types.indexOf("replyer.generated")).toBeLessThan(types.indexOf("message.sent"));
  });

  it("streams each event with the id it is stored under, in the order it was emitted", async () => {
    const stream = await openSse(`${scene.bot.baseUrl}/api/monitor/stream`, {
      authorization: `Bearer ${TOKEN}`,
    });
    scene.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "一条" });
    const turn = await turnFor("说点什么");
    await stream.waitFor((_event, data) => {
      const event = data as ShownEvent;
      return event.replyId === turn.replyId && event.type === "turn.finished";
    });
    stream.close();
    const live = stream.events
      .map((entry) => entry.data as ShownEvent)
      .filter((event) => event.replyId === turn.replyId);
    const stored = (await api.get(`/api/monitor/turns/${turn.replyId}`)).body.events as ShownEvent[];
    // Several of a turn's events share a millisecond: the ids order them, live and stored alike.
    expect(live.map((event) => [event.id, event.type])).toEqual(
      stored.map((event) => [event.id, event.type]),
    );
    expect(live.map((event) => event.id)).toEqual([...live.map((event) => event.id)].sort((a, b) => a - b));
    expect(live[0]).toMatchObject({ type: "turn.started", id: turn.id });
  });
});
