import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type TinyModelFolder, tinyModelFolder } from "./llama-fixture.ts";

const RECOMMENDED = "qwen2.5-1.5b-instruct-q4";

describe("the console's local model option", () => {
  let folder: TinyModelFolder;
  let bot: BotHarness;

  beforeEach(async () => {
    folder = tinyModelFolder();
    bot = await startBot({ dataDir: folder.dataDir, configFile: true, config: { plugins: { dirs: [] } } });
  });

  afterEach(async () => {
    await bot.dispose();
    folder.remove();
  });

  it("shows the runtime and the recommended model, saves the choice, and names a corrupt file clearly", async () => {
    const api = apiClient(bot.baseUrl);
    const first = await api.get("/api/local-model");
    expect(first.body).toMatchObject({
      runtime: { version: "3.21.1", installed: true, installing: false },
      recommended: [{ name: RECOMMENDED, sizeBytes: 1_117_320_736 }],
      installed: [],
      downloads: [],
      models: [],
    });
    expect((await api.post("/api/local-model/pull", { name: "nope" })).status).toBe(400);
    const notYet = await api.post("/api/local-model/use", { name: RECOMMENDED });
    expect(notYet.status).toBe(409);
    expect(notYet.body.problems).toEqual([`${RECOMMENDED} is not downloaded yet: download it first`]);

    // A file of the wrong size where the download belongs: chosen, then refused at first use.
    const models = join(folder.dataDir, "models");
    mkdirSync(models);
    const path = join(models, "qwen2.5-1.5b-instruct-q4_k_m.gguf");
    copyFileSync(folder.modelPath, path);
    const saved = await api.post("/api/local-model/use", { name: RECOMMENDED });
    expect(saved.body).toEqual({ saved: true, file: bot.configFile });
    const onDisk = readFileSync(bot.configFile!, "utf8");
    expect(onDisk).toMatch(/type: llama-cpp/);
    expect(onDisk).toContain(`model: ${RECOMMENDED}`);
    expect(onDisk).toContain(`local/${RECOMMENDED}`);

    const qq = new OneBotStandIn({ selfId: "10000" });
    await qq.connectReverse(bot.wsUrl);
    qq.pushPrivateMessage({ userId: "30001", message: [{ type: "text", data: { text: "在吗" } }] });
    const failed = await bot.turnFinished();
    await qq.close();
    const problem = `model file ${path} has ${readFileSync(path).length} bytes instead of 1117320736 (corrupt or incomplete): run "npm run model -- pull ${RECOMMENDED}"`;
    expect(failed.data.status).toBe("failed");
    expect(String(failed.data.reason)).toContain(problem);
    const status = await api.get("/api/local-model");
    expect(status.body.models).toEqual([
      expect.objectContaining({ providerId: "local", state: "failed", error: problem }),
    ]);
    expect(status.body.installed).toEqual([expect.objectContaining({ name: RECOMMENDED, path })]);
  });
});
