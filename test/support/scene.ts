import { type BotHarness, type StartBotOptions, startBot } from "./bot-harness.ts";
import { SELF } from "./messages.ts";
import { OneBotStandIn } from "./onebot-standin.ts";
import { ScriptedLlmServer } from "./scripted-llm-server.ts";

/** A whole bot, a scripted model and a OneBot stand-in connected to it: most end-to-end tests. */
export interface Scene {
  llm: ScriptedLlmServer;
  bot: BotHarness;
  qq: OneBotStandIn;
  /** Closes the stand-in, the bot (and its data folder) and the model, in that order. */
  close(): Promise<void>;
}

/** `llm`, when given (a test that needs its address in the config), is closed with the scene. */
export async function startScene(options: StartBotOptions & { selfId?: string } = {}): Promise<Scene> {
  const llm = options.llm ?? (await ScriptedLlmServer.start());
  const bot = await startBot({ ...options, llm });
  const qq = new OneBotStandIn({ selfId: options.selfId ?? SELF });
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
