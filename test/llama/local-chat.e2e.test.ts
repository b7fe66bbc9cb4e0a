import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { GROUP, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type TinyModelFolder, tinyModelFolder } from "./llama-fixture.ts";

describe("chatting with a local model, no API key (tiny generated GGUF)", () => {
  let folder: TinyModelFolder;
  let bot: BotHarness;
  let qq: OneBotStandIn;

  beforeEach(async () => {
    folder = tinyModelFolder();
    bot = await startBot({
      dataDir: folder.dataDir,
      config: {
        llm: {
          providers: [
            {
              id: "local",
              type: "llama-cpp",
              model: folder.modelPath,
              threads: 1,
              contextSize: 4096,
              gpu: false,
            },
          ],
          models: { planner: ["local/tiny"], replyer: ["local/tiny"] },
        },
        // Only reply, no_reply and wait: the tiny model's "r" would otherwise pick "roll",
        // "remember" or "recall" as often as "reply" (and "schedule" the other tools' places).
        plugins: { dirs: [] },
        memory: { enabled: false },
        reminders: { enabled: false },
      },
    });
    qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
  });

  afterEach(async () => {
    await qq.close();
    await bot.dispose();
    folder.remove();
  });

  it("loads the model on the first message, plans a reply call and sends the replyer's text", async () => {
    expect(bot.logs.some((line) => line.msg === "local model loaded")).toBe(false);
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: "30001",
      nickname: "Alice",
      message: [
        { type: "at", data: { qq: SELF } },
        { type: "text", data: { text: " 你好呀" } },
      ],
    });
    const sent = await qq.waitForSent((s) => s.groupId === GROUP, 15_000);
    expect(sent.action).toBe("send_group_msg");
    // The tiny model's prose: printable, as long as the default answer limit allows.
    expect(sent.text).toMatch(/^[\x20-\x7e]{100,}$/);

    // The line that tells the operator how the model was loaded (it loaded before the reply).
    const loaded = bot.logs.find((line) => line.msg === "local model loaded");
    expect(loaded).toMatchObject({ provider: "local", threads: 1, contextSize: 4096, gpu: false });
    expect((await bot.turnFinished()).data.status).toBe("replied");
    expect(bot.logs.filter((line) => line.msg === "local model loaded")).toHaveLength(1);
  });

  it("answers the console's model test button with the local model", async () => {
    const response = await fetch(`${bot.baseUrl}/api/models/test`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-tsumugi-console": "1" },
      body: JSON.stringify({ ref: "local/tiny" }),
    });
    const result = (await response.json()) as { ok: boolean; text?: string; error?: string };
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.text).toMatch(/^[\x20-\x7e]+$/);
  });
});
