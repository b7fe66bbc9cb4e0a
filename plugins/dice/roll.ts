import { randomInt } from "node:crypto";
import type { BotApi, PluginEvent } from "tsumugi/sdk";

interface DiceConfig {
  max_dice: number;
}

/**
 * Called as fn(bot, event, config, args). It posts the result itself and returns nothing,
 * so the turn ends here: no second model call just to repeat the numbers.
 */
export async function roll_dice(
  bot: BotApi,
  event: PluginEvent,
  config: DiceConfig,
  args: { sides?: number; count?: number },
): Promise<void> {
  const sides = args.sides ?? 6;
  const count = Math.min(args.count ?? 1, config.max_dice);
  const rolls = Array.from({ length: count }, () => randomInt(1, sides + 1));
  const total = count > 1 ? `（合计 ${rolls.reduce((sum, roll) => sum + roll, 0)}）` : "";
  await bot.send(event, `🎲 ${event.sender.nickname} 掷出了 ${rolls.join("、")}${total}`);
}
