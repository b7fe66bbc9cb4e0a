/** Driving plugin tools that use long-term memory (the plugin memory tests): one turn, one tool call. */
import { ALICE, mention } from "./messages.ts";
import type { Scene } from "./scene.ts";

let turns = 0;

/**
 * Alice @-mentions the bot in `groupId`; the planner calls `tool` with `args`, then replies.
 * Resolves with the tool's result as the planner saw it: parsed when it is JSON (what the tool
 * returned), else its text (a hook's denial).
 */
export async function toolResultInGroup(
  scene: Scene,
  groupId: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const reply = `好的（${++turns}）`;
  const before = scene.llm.requests.length;
  scene.llm.enqueue(
    { toolCalls: [{ name: tool, arguments: args }] },
    { toolCalls: [{ name: "reply", arguments: {} }] },
    { text: reply },
  );
  scene.qq.pushGroupMessage({ groupId, userId: ALICE, nickname: "Alice", message: mention("帮我记一下") });
  await scene.qq.waitForSent((sent) => sent.groupId === groupId && sent.text.includes(reply), 15_000);
  const planner = scene.llm.requests
    .slice(before)
    .findLast((request) => request.body.messages.some((message) => message.role === "tool"));
  const result = String(planner?.body.messages.findLast((message) => message.role === "tool")?.content);
  try {
    return JSON.parse(result);
  } catch {
    return result;
  }
}
