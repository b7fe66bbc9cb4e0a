import { afterEach, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { encodeRgbaPng } from "../support/pictures.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";

const TOKEN = "playground-token";
const PICTURE = encodeRgbaPng(1, 1, Uint8Array.from([255, 140, 0, 255]));
const DESCRIPTION = "一只橘猫趴在键盘上";

let llm: ScriptedLlmServer | undefined;
let bot: BotHarness | undefined;

afterEach(async () => {
  await bot?.dispose();
  await llm?.close();
});

it("describes a picture posted in the console playground once, and shows it to the planner", async () => {
  llm = await ScriptedLlmServer.start();
  bot = await startBot({
    llm,
    config: { server: { token: TOKEN }, llm: { models: { vision: ["main/scripted-model"] } } },
  });
  const api = apiClient(bot.baseUrl, TOKEN);
  const ask = (text: string) =>
    api.post("/api/playground/messages", {
      chatType: "group",
      groupId: "20000",
      userId: "30001",
      senderName: "Alice",
      segments: [
        { type: "at", data: { qq: "10000", name: "紬" } },
        { type: "text", data: { text: ` ${text}` } },
        { type: "image", data: { file: `base64://${PICTURE.toString("base64")}` } },
      ],
    });
  const reply = [{ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好可爱" }];

  llm.enqueue({ text: DESCRIPTION }, ...reply);
  expect((await ask("这张图怎么样")).status).toBe(201);
  expect((await bot.turnFinished(1, 5_000)).data.status).toBe("replied");
  const vision = llm.requests.filter((request) => request.images.length > 0);
  expect(vision.map((request) => request.images)).toEqual([
    [`data:image/png;base64,${PICTURE.toString("base64")}`],
  ]);
  expect(llm.lastRequestWithTool("reply")?.promptText).toContain(`这张图怎么样[图片：${DESCRIPTION}]`);

  llm.enqueue(...reply);
  await ask("再看一次");
  expect((await bot.turnFinished(2, 5_000)).data.status).toBe("replied");
  expect(llm.requests.filter((request) => request.images.length > 0)).toHaveLength(1);
  expect(llm.lastRequestWithTool("reply")?.promptText).toContain(`再看一次[图片：${DESCRIPTION}]`);
  expect(llm.unscriptedRequests).toEqual([]);
});
