import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { askInGroup, extensionPlugin, scenePerTest } from "./extension-fixtures.ts";

/** Three sentences that `textChunkLimit: 10` sends as three messages. */
const REPLY = "第一句说完了。第二句也说完。第三句在最后。";
const MESSAGES = ["第一句说完了。", "第二句也说完。", "第三句在最后。"];

describe("streamed replies", () => {
  const scenes = scenePerTest();

  /** The scene with `textChunkLimit: 10` and the replyer's provider timing out after `timeoutMs`. */
  const start = async (config: Record<string, unknown> = {}, timeoutMs = 10_000) => {
    const llm = await ScriptedLlmServer.start();
    return scenes.start({
      llm,
      config: {
        chat: { textChunkLimit: 10 },
        llm: {
          providers: [
            { id: "main", type: "openai-compatible", baseUrl: llm.baseUrl, maxRetries: 1, timeoutMs },
          ],
        },
        ...config,
      },
    });
  };
  const indexOf = (events: MonitorEvent[], type: string) => events.findIndex((event) => event.type === type);

  it("sends each message as soon as it is complete, the first long before the model has finished", async () => {
    const { llm, bot, qq } = await start();
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { set_quote: true } }] },
      { text: REPLY, stream: { tokensPerSecond: 20 } },
    );
    const asked = askInGroup(qq, "讲讲");

    const first = await qq.waitForSent(undefined, 5_000);
    // 21 characters at 20 a second: the model is still writing the second half.
    expect(bot.events.some((event) => event.type === "replyer.generated")).toBe(false);
    expect(first.message).toEqual([
      { type: "reply", data: { id: asked } },
      { type: "text", data: { text: MESSAGES[0] } },
    ]);
    const ended = await bot.turnFinished(1, 5_000);
    expect(ended.data.status).toBe("replied");
    expect(qq.sent.map((sent) => sent.text)).toEqual(MESSAGES);
    const generated = await bot.waitForEvent("replyer.generated");
    expect(indexOf(bot.events, "message.sent")).toBeLessThan(bot.events.indexOf(generated));
    const { firstTokenMs, latencyMs } = generated.data as { firstTokenMs: number; latencyMs: number };
    expect(firstTokenMs).toBeLessThan(latencyMs - 500);
    expect(llm.requests.at(-1)?.body.stream).toBe(true);
  });

  it("sends nothing before the whole reply has passed a selected before_send extension", async () => {
    const sandbox = scenes.sandbox();
    sandbox.add("alpha", {
      "index.ts": extensionPlugin({
        name: "shout",
        options: "{ parameters: {} }",
        body: `if (payload.phase === "prepare") return {};
    return { messages: payload.messages.map((m: any) => ({ ...m, segments: m.segments.map((s: any) => ({ ...s, data: s.data + "！" })) })) };`,
      }),
    });
    const { llm, bot, qq } = await start({ plugins: { dirs: [sandbox.root] } });
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { plugin_options: { "alpha.shout": {} } } }] },
      { text: REPLY, stream: { tokensPerSecond: 20 } },
    );
    askInGroup(qq, "讲讲");

    const ended = await bot.turnFinished(1, 5_000);
    expect(ended.data.status).toBe("replied");
    expect(qq.sent.map((sent) => sent.text)).toEqual(MESSAGES.map((text) => `${text}！`));
    const beforeSend = bot.events.findIndex(
      (event) => event.type === "reply.extension" && event.data.phase === "before_send",
    );
    expect(indexOf(bot.events, "replyer.generated")).toBeLessThan(beforeSend);
    expect(indexOf(bot.events, "message.sent")).toBeGreaterThan(beforeSend);
  });

  it("fails a reply whose stream stalls after its first message, without asking again or repeating it", async () => {
    const { llm, bot, qq } = await start({}, 1_500);
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: REPLY, stream: { tokensPerSecond: 50, stallAfterTokens: 12 } },
      { text: "重试时的另一版回复" },
    );
    askInGroup(qq, "讲讲");

    const ended = await bot.turnFinished(1, 8_000);
    expect(ended.data.status).toBe("failed");
    expect(ended.data.reason).toContain("broke off after 1 message(s) were sent");
    expect(ended.data.reason).toContain("timed out after 1500 ms");
    expect(qq.sent.map((sent) => sent.text)).toEqual([MESSAGES[0]]);
    // The queued answer a retry would have taken is still there: no second replyer call.
    expect(llm.requests).toHaveLength(2);
    expect(llm.remainingSteps).toBe(1);
  });
});
