import type { Batch } from "../chat/batch.ts";
import type { ToolSpec } from "../llm/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { ToolTurn } from "./builtin-tools.ts";

/** The planner's tool to poke back (戳回去), offered only in a turn someone poked the bot in. */
export const POKE_TOOL = "poke";

export function pokeToolSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: POKE_TOOL,
    description: prompts.render("tool_poke"),
    parameters: { type: "object", properties: {}, additionalProperties: false },
  };
}

/** The newest poke of the bot among the batch's messages: whom a poke back goes to. */
export function pokeOfBot(batch: Batch): ChatMessage | undefined {
  return batch.messages.findLast(
    (message) => message.notice?.type === "poke" && message.notice.targetId === message.selfId,
  );
}

/** Pokes back whoever poked the bot in this turn; the tool result, or undefined when nobody did. */
export async function pokeBack(turn: ToolTurn): Promise<string | undefined> {
  const poke = pokeOfBot(turn.batch);
  if (!poke) return undefined;
  await turn.replies.poke(turn.origin(), poke.userId);
  return turn.settings.prompts.render("result_poked", { name: poke.senderName });
}
