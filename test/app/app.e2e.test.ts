import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createLogger } from "../../src/log/logger.ts";
import { startBot, storedRows } from "../support/bot-harness.ts";
import { ALICE, GROUP, groupSession, plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

describe("the running bot", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(config: Record<string, unknown> = {}) {
    const llm = await ScriptedLlmServer.start();
    const bot = await startBot({ llm, config });
    const qq = new OneBotStandIn({ selfId: SELF });
    cleanups.push(
      () => llm.close(),
      () => bot.dispose(),
      () => qq.close(),
    );
    return { llm, bot, qq };
  }

  it("reports the account's connection on /healthz (its number only with the token)", async () => {
    const { bot, qq } = await setup();
    const before = await (await fetch(`${bot.baseUrl}/healthz`)).json();
    expect(before).toEqual({
      status: "ok",
      adapters: [{ id: "qq", connected: false }],
      storage: { state: "ok", spooled: 0, dropped: 0 },
    });
    await qq.connectReverse(bot.wsUrl);
    const health = async () =>
      (await (await fetch(`${bot.baseUrl}/healthz`)).json()) as { adapters: unknown[] };
    await waitFor(async () => JSON.stringify(await health()).includes(`"connected":true`));
    expect((await health()).adapters).toEqual([{ id: "qq", connected: true }]);
  });

  it("guards /api/* with the bearer token but not /healthz", async () => {
    const { bot } = await setup({ server: { token: "s3cret-token" } });
    expect((await fetch(`${bot.baseUrl}/api/anything`)).status).toBe(401);
    const wrong = await fetch(`${bot.baseUrl}/api/anything`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${bot.baseUrl}/api/anything`, {
      headers: { authorization: "Bearer s3cret-token" },
    });
    expect(right.status).not.toBe(401);
    expect((await fetch(`${bot.baseUrl}/healthz`)).status).toBe(200);
    expect(JSON.stringify(bot.logs)).not.toContain("s3cret-token");
  });

  it("answers a reply to one of its own messages, and its name said in passing", async () => {
    const { llm, bot, qq } = await setup();
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "第一次回复" });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("hi") });
    const first = await qq.waitForSent(undefined, 5_000);
    expect((await bot.turnFinished(1)).data.status).toBe("replied");

    // In a group, a quote of the bot's message triggers even without a mention.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "第二次回复" });
    const sentInGroup = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("紬在吗") });
    const second = await qq.waitForSent((s) => s.groupId === GROUP, 5_000);
    expect(second.text).toBe("第二次回复");
    expect(sentInGroup).toBeTruthy();
    const inGroup = await bot.turnFinished(2);
    expect(inGroup).toMatchObject({ sessionId: groupSession(), data: { status: "replied" } });

    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "第三次回复" });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: [
        { type: "reply", data: { id: String(second.messageId) } },
        { type: "text", data: { text: "你说得对" } },
      ],
    });
    const third = await qq.waitForSent((s) => s.text === "第三次回复", 5_000);
    expect(third.groupId).toBe(GROUP);
    expect(first.userId).toBe(ALICE);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("does not react to untriggered chatter from others, and stores it", async () => {
    const { llm, bot, qq } = await setup();
    await qq.connectReverse(bot.wsUrl);
    for (let i = 0; i < 5; i++)
      qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain(`闲聊 ${i}`) });
    const ingested = () => bot.events.filter((event) => event.type === "message.ingested");
    await waitFor(() => ingested().length === 5);
    await sleep(100);
    expect(llm.requests).toHaveLength(0);
    expect(ingested().every((event) => event.data.trigger === null)).toBe(true);
  });

  it("records the token usage and the outcome of every turn in the database", async () => {
    const { llm, bot, qq } = await setup();
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }], usage: { promptTokens: 321, completionTokens: 7 } },
      { text: "好", usage: { promptTokens: 400, completionTokens: 2 } },
    );
    qq.pushPrivateMessage({ userId: ALICE, message: plain("hi") });
    const finished = await bot.turnFinished();
    expect(finished.data.status).toBe("replied");
    await bot.stop();
    const rows = (sql: string) => storedRows(bot.dataDir, sql);
    expect(
      await rows("SELECT task, prompt_tokens, completion_tokens, success FROM llm_usage ORDER BY id"),
    ).toEqual([
      { task: "planner", prompt_tokens: 321, completion_tokens: 7, success: 1 },
      { task: "replyer", prompt_tokens: 400, completion_tokens: 2, success: 1 },
    ]);
    expect(await rows(`SELECT status, reason FROM turns WHERE reply_id = '${finished.replyId}'`)).toEqual([
      { status: "replied", reason: expect.stringContaining("replied to") },
    ]);
  });

  it("fails a turn that runs past agent.turnTimeoutMs and sends nothing", async () => {
    const { llm, bot, qq } = await setup({ agent: { turnTimeoutMs: 300 } });
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }], delayMs: 2_000 });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("hi") });
    const failed = await bot.turnFinished();
    expect(failed.data).toMatchObject({ status: "failed", reason: "turn timed out" });
    await sleep(200);
    expect(qq.sent).toHaveLength(0);
  });

  it("fails a turn still waiting on the model at shutdown, sends nothing and stops in time", async () => {
    const { llm, bot, qq } = await setup();
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }], delayMs: 30_000 });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("hi") });
    await waitFor(() => llm.requests.length === 1);
    const stopping = Date.now();
    await bot.stop();
    expect(Date.now() - stopping).toBeLessThan(9_500);
    const failed = bot.events.find((event) => event.type === "turn.finished");
    expect(failed?.data).toMatchObject({ status: "failed", reason: "shutting down" });
    expect(qq.sent).toHaveLength(0);
  });

  it("holds a reply while NapCat restarts and sends it once it is back, exactly once", async () => {
    const { llm, bot, qq } = await setup();
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "我回来了", delayMs: 300 });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("在吗") });
    await waitFor(() => llm.requests.length === 2);
    // The connection drops while the reply is being written and comes back 1 s later.
    const restarted = qq.restart(1_000);
    await bot.waitForEvent("adapter.connection", (event) => event.data.connected === false);
    await restarted;
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("我回来了");
    expect((await bot.turnFinished()).data.status).toBe("replied");
    await sleep(200);
    expect(qq.sent).toHaveLength(1);
  });

  it("writes the times the model reads in chat.timezone", async () => {
    const { llm, bot, qq } = await setup({ chat: { timezone: "Asia/Shanghai" } });
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "看时间" } }] });
    // 2025-11-29 17:06:40 UTC is 01:06:40 the next day in Shanghai.
    qq.pushPrivateMessage({ userId: ALICE, message: plain("几点了"), time: 1764436000 });
    expect((await bot.turnFinished()).data.status).toBe("silent");
    expect(llm.requests[0]!.promptText).toContain("[01:06:40] user30001(30001): 几点了");
  });

  it("keeps a 19-digit forward id exact from the wire to the database", async () => {
    const { bot, qq } = await setup();
    await qq.connectReverse(bot.wsUrl);
    qq.pushRaw(
      `{"post_type":"message","message_type":"group","sub_type":"normal","self_id":${SELF},"group_id":${GROUP},` +
        `"user_id":${ALICE},"message_id":-2147483000,"time":1764400000,"font":0,"raw_message":"",` +
        `"sender":{"user_id":${ALICE},"nickname":"A"},"message":[{"type":"forward","data":{"id":7321873298371293187}}]}`,
    );
    await bot.waitForEvent("message.ingested");
    await bot.stop();
    const [row] = await storedRows(bot.dataDir, "SELECT message_id, segments FROM messages");
    expect(row?.message_id).toBe("-2147483000");
    expect(JSON.parse(String(row?.segments))).toEqual([
      { type: "forward", data: { id: "7321873298371293187" } },
    ]);
  });

  it("applies an edited persona to the next turn without a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsumugi-reload-"));
    const llm = await ScriptedLlmServer.start();
    const file = join(dir, "tsumugi.yaml");
    const yaml = (persona: string) =>
      [
        "server: { port: 0 }",
        `storage: { url: "sqlite:${join(dir, "t.db")}" }`,
        `bot: { persona: "${persona}" }`,
        "chat: { realtime: { windowMs: 20 } }",
        "llm:",
        `  providers: [{ id: main, type: openai-compatible, baseUrl: "${llm.baseUrl}" }]`,
        "  models: { planner: [main/m], replyer: [main/m] }",
        "",
      ].join("\n");
    writeFileSync(file, yaml("你是一只猫。"));
    const { config } = loadConfig({ file, env: {}, cwd: dir });
    const logger = createLogger({ level: "silent" });
    const app = await startApp({ config, configFile: file, logger });
    const qq = new OneBotStandIn({ selfId: SELF });
    cleanups.push(
      async () => rmSync(dir, { recursive: true, force: true }),
      () => llm.close(),
      () => app.stop(),
      () => qq.close(),
    );
    await qq.connectReverse(`ws://127.0.0.1:${app.address.port}/onebot/v11/ws`);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "喵" });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("你是谁") });
    await qq.waitForSent(undefined, 5_000);
    expect(llm.lastRequestWithTool("reply")!.promptText).toContain("你是一只猫。");

    writeFileSync(file, yaml("你是一只狗。"));
    await sleep(600);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "汪" });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("现在呢") });
    await qq.waitForSent((s) => s.text === "汪", 5_000);
    expect(llm.lastRequestWithTool("reply")!.promptText).toContain("你是一只狗。");
  });
});
