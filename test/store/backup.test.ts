/**
 * `npm run backup` while the bot runs: SQLite's online backup gives a consistent copy that
 * holds every message stored so far, readable by its owner only, and the bot keeps working.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { storedMessages } from "../support/bot-api.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { plain } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(ROOT, "node_modules/.bin/tsx");
const BACKUP = join(ROOT, "scripts/backup.ts");

describe("npm run backup", () => {
  let bot: BotProcess;
  let qq: OneBotStandIn;

  afterEach(async () => {
    await qq?.close();
    await bot?.dispose();
  });

  it("copies the running bot's database, messages included, as a 0600 file", async () => {
    bot = await startBotProcess();
    qq = new OneBotStandIn({ selfId: "10000" });
    await qq.connectReverse(bot.wsUrl);
    for (let index = 0; index < 5; index++) {
      qq.pushGroupMessage({ groupId: "20000", userId: "30001", message: plain(`第 ${index} 条`) });
    }
    await waitFor(async () => (await storedMessages(bot, "条")).length === 5, 10_000, "five messages stored");

    const target = join(bot.dataDir, "copies", "backup.db");
    const run = spawnSync(TSX, [BACKUP, target, "--config", bot.configFile], {
      cwd: bot.dataDir,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`to ${target}`);
    expect(statSync(target).mode & 0o777).toBe(0o600);

    const copy = new Database(target, { readonly: true });
    try {
      const texts = copy.prepare("SELECT segments FROM messages WHERE user_id = '30001' ORDER BY id").all();
      expect(texts).toHaveLength(5);
    } finally {
      copy.close();
    }
    // The bot was never blocked: it still answers its health check.
    expect((await fetch(`${bot.baseUrl}/healthz`)).status).toBe(200);

    const again = spawnSync(TSX, [BACKUP, target, "--config", bot.configFile], { encoding: "utf8" });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("already exists");
  });
});
