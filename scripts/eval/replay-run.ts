/**
 * `npm run eval -- --replay <session>`: reads the chat from the store (read-only), replays it
 * through a throwaway bot per candidate config, prints the side-by-side table and keeps the
 * report (JSON and table) in `replays/` next to the first candidate config unless `--clean`.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { currencyOf } from "../../src/llm/prices.ts";
import { startEvalBot } from "./eval-bot.ts";
import { type CandidateRun, type ReplaySpeed, replayChat, seedPictures } from "./replay.ts";
import { replayReport, replayTable } from "./replay-report.ts";
import { readStoredChat } from "./replay-source.ts";

export interface ReplayOptions {
  session: string;
  db: string;
  configs: string[];
  from?: number;
  to?: number;
  speed: ReplaySpeed;
  json?: string;
  clean: boolean;
}

export async function runReplay(options: ReplayOptions): Promise<number> {
  const chat = readStoredChat(options.db, options.session, options);
  process.stdout.write(
    `replaying ${chat.sessionId}: ${chat.messages.length} stored messages, ` +
      `${chat.pictures.length} cached picture descriptions, speed ${options.speed}\n`,
  );
  // Every candidate's bot starts at once; the chat is replayed through one after the other.
  const bots = options.configs.map((configFile) =>
    startEvalBot({ configFile, base: {}, scenarioConfig: {}, seed: seedPictures(chat), selfId: chat.selfId }),
  );
  const candidates: Array<{ config: string; run: CandidateRun; currency: string | undefined }> = [];
  try {
    for (const [index, configFile] of options.configs.entries()) {
      const bot = await bots[index];
      if (!bot) continue;
      try {
        const run = await replayChat(bot, chat, options.speed);
        candidates.push({ config: configFile, run, currency: currencyOf(bot.prices) });
        process.stdout.write(`${configFile}: ${run.messages.length} messages, ${run.turns} turns\n`);
      } finally {
        await bot.stop();
      }
    }
  } finally {
    await Promise.allSettled(bots.map((bot) => bot.then((started) => started.stop())));
  }
  const report = replayReport({ chat, db: options.db, window: options, speed: options.speed, candidates });
  const text = replayTable(report);
  const json = `${JSON.stringify(report, null, 2)}\n`;
  process.stdout.write(`\n${text}\n`);
  if (options.json) writeFileSync(options.json, json);
  if (!options.clean) {
    const folder = keptReportFolder(options.configs[0] ?? ".", chat.sessionId);
    writeFileSync(join(folder, "report.json"), json, { mode: 0o600 });
    writeFileSync(join(folder, "report.txt"), `${text}\n`, { mode: 0o600 });
    process.stdout.write(`report kept in ${folder} (--clean keeps none)\n`);
  }
  return 0;
}

/** `replays/<time>-<session>/` beside the candidate config: the run's report stays with it, owner-only. */
function keptReportFolder(configFile: string, sessionId: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const base = join(resolve(dirname(configFile)), "replays");
  let folder = join(base, `${stamp}-${sessionId.replace(/[^\w.-]+/g, "_")}`);
  for (let n = 2; existsSync(folder); n++) folder = `${folder}-${n}`;
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}
