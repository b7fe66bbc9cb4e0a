/**
 * The model of `npm run eval -- --scripted`: the project's scripted OpenAI-compatible server
 * answering every request by a fixed rule, so the shipped scenarios run without a provider.
 *
 * - Planner (the request offers `reply`): calls `reply`. At the default settings the bot asks
 *   the planner only when a trigger fired (an @, its name, a reply to it, a private message),
 *   so whether it speaks is the bot's decision, which is what the scenarios score.
 * - Replyer (the request says what it answers): the scenario's `script.replies` in order, then
 *   a reply naming the sender and the question, with @-mentions left out.
 * - Anything else (background memory learning, summaries): nothing learned, "好的".
 *
 * It reads the Chinese templates (`prompts.language: zh`, the default).
 */
import { clip } from "../../src/util/values.ts";
import {
  type RecordedLlmRequest,
  type ScriptedResponse,
  ScriptedLlmServer,
} from "../../test/support/scripted-llm-server.ts";

export const SCRIPTED_MODEL = "scripted-model";

/** Finds the scripted replies still to give in the scenario a platform user id belongs to. */
export type ScriptedRepliesOf = (userId: string) => string[] | undefined;

const REPLYER_TARGET = /你要回复的是：\[[^\]]*\] (.+?)\((\d+)\)[:：] ?(.*)/;

export async function startScriptedModel(repliesOf: ScriptedRepliesOf): Promise<ScriptedLlmServer> {
  return ScriptedLlmServer.start({
    models: [SCRIPTED_MODEL],
    whenEmpty: (request) => scriptedAnswer(request, repliesOf),
  });
}

/** The provider entries a bot config needs to use the scripted model for its tasks. */
export function scriptedModelConfig(llm: ScriptedLlmServer): Record<string, unknown> {
  const model = [`scripted/${SCRIPTED_MODEL}`];
  return {
    llm: {
      providers: [{ id: "scripted", type: "openai-compatible", baseUrl: llm.baseUrl, apiKey: "scripted" }],
      models: { planner: model, replyer: model },
    },
  };
}

export function scriptedAnswer(request: RecordedLlmRequest, repliesOf: ScriptedRepliesOf): ScriptedResponse {
  const prompt = request.promptText;
  if (request.toolNames.includes("reply")) {
    return { toolCalls: [{ name: "reply", arguments: {} }] };
  }
  const target = REPLYER_TARGET.exec(prompt);
  if (target) {
    const [, sender = "", userId = "", said = ""] = target;
    const scripted = repliesOf(userId)?.shift();
    if (scripted !== undefined) return { text: scripted };
    const question = clip(said.replace(/@\S+/g, "").trim(), 30);
    return { text: `${sender}，你说「${question}」，我想想……` };
  }
  if (prompt.includes('{"memories"')) return { text: '{"memories": []}' };
  return { text: "好的" };
}
