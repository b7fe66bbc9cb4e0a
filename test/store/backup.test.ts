/**
 * `npm run backup` while the bot runs: SQLite's online backup gives a consistent copy that
 * holds every message stored so far, readable by its owner only, and the bot keeps working.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { backupDatabase } from "../../src/store/sqlite/backup.ts";
import { storedMessages } from "../support/bot-api.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { plain } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { makeTempDir } from "../support/store.ts";
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
    // A bot and two runs of the command, each a process of its own compiling the source.
  }, 60_000);
});

describe("a backup being written", () => {
  it("is never readable by others, from the moment the file exists", async () => {
    const dir = makeTempDir();
    try {
      // Big enough that the copy takes many steps (100 pages each, one per event-loop turn).
      const source = join(dir.path, "tsumugi.db");
      const db = new Database(source);
      db.exec("CREATE TABLE filler (text TEXT)");
      const insert = db.prepare("INSERT INTO filler VALUES (?)");
      db.transaction(() => {
        for (let row = 0; row < 2_000; row++) insert.run("字".repeat(1_000));
      })();
      db.close();

      const target = join(dir.path, "backups", "copy.db");
      const modesSeen = new Set<number>();
      let copying = true;
      const watch = () => {
        if (existsSync(target)) modesSeen.add(statSync(target).mode & 0o777);
        if (copying) setImmediate(watch);
      };
      watch();
      const { pages } = await backupDatabase(source, target);
      copying = false;

      expect(pages).toBeGreaterThan(1_000);
      expect([...modesSeen]).toEqual([0o600]);
    } finally {
      dir.remove();
    }
  });
});
