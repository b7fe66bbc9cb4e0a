import { type BotHarness, type StartBotOptions, startBot } from "./bot-harness.ts";
import { type BotProcess, type BotProcessOptions, startBotProcess } from "./bot-process.ts";
import { SELF } from "./messages.ts";
import { OneBotStandIn } from "./onebot-standin.ts";
import { ScriptedLlmServer } from "./scripted-llm-server.ts";

/** A whole bot, a scripted model and a OneBot stand-in connected to it: most end-to-end tests. */
export interface Scene<Bot = BotHarness> {
  llm: ScriptedLlmServer;
  bot: Bot;
  qq: OneBotStandIn;
  /** Closes the stand-in, the bot (and its data folder) and the model, in that order. */
  close(): Promise<void>;
}

export interface SceneOptions {
  /** Closed with the scene; given by a test that needs the model's address in the config. */
  llm?: ScriptedLlmServer;
  /** The account the stand-in is (default SELF). */
  selfId?: string;
}

/** The bot in this process (`bot.events`, `bot.waitForEvent`). */
export async function startScene(options: StartBotOptions & SceneOptions = {}): Promise<Scene> {
  const llm = options.llm ?? (await ScriptedLlmServer.start());
  return connected(llm, await startBot({ ...options, llm }), options.selfId);
}

/** The bot as its own process (bot-process.ts), for crashes, restarts and locked files. */
export async function startProcessScene(
  options: BotProcessOptions & SceneOptions = {},
): Promise<Scene<BotProcess>> {
  const llm = options.llm ?? (await ScriptedLlmServer.start());
  return connected(llm, await startBotProcess({ ...options, llm }), options.selfId);
}

async function connected<Bot extends { wsUrl: string; dispose(): Promise<void> }>(
  llm: ScriptedLlmServer,
  bot: Bot,
  selfId = SELF,
): Promise<Scene<Bot>> {
  const qq = new OneBotStandIn({ selfId });
  await qq.connectReverse(bot.wsUrl);
  return {
    llm,
    bot,
    qq,
    async close() {
      await qq.close();
      await bot.dispose();
      await llm.close();
    },
  };
}
