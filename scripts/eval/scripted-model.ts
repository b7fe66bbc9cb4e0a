/**
 * The model of `npm run eval -- --scripted`: the project's scripted OpenAI-compatible server
 * answering every request by a fixed rule, so the shipped scenarios run without a provider.
 *
 * - Planner (the request offers `reply`): calls `reply`, quoting the message it answers when
 *   the scenario says `script.quote: true`. At the default settings the bot asks the planner
 *   only when a trigger fired (an @, its name, a reply to it, a private message), so whether
 *   it speaks is the bot's decision, which is what the scenarios score.
 * - Replyer (the request says what it answers): the scenario's `script.replies` in order, then
 *   a reply naming the sender and the question, with @-mentions left out.
 * - Anything else (background memory learning, summaries): nothing learned, "好的".
 *
 * It reads the Chinese templates (`prompts.language: zh`, the default).
 */
import { clip } from "../../src/util/values.ts";
import {
  type RecordedLlmRequest,
  ScriptedLlmServer,
  type ScriptedResponse,
} from "../../test/support/scripted-llm-server.ts";

const SCRIPTED_MODEL = "scripted-model";

/** A scenario's `script`, its replies consumed as they are given. */
export interface ScenarioScript {
  replies: string[];
  quote: boolean;
}

/** Finds the script of the scenario a platform user id belongs to. */
export type ScriptOf = (userId: string) => ScenarioScript | undefined;

/** A member as prompts show them, `name(user id)`. */
const USER_ID = /\((\d+)\)/g;
/** How the replyer's request introduces the message it answers. */
const REPLYER_ASKS = "你要回复的是：";
const REPLYER_TARGET = /你要回复的是：\[[^\]]*\] (.+?)\(\d+\)[:：] ?(.*)/;

export async function startScriptedModel(scriptOf: ScriptOf): Promise<ScriptedLlmServer> {
  return ScriptedLlmServer.start({
    models: [SCRIPTED_MODEL],
    whenEmpty: (request) => scriptedAnswer(request, scriptOf),
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

function scriptedAnswer(request: RecordedLlmRequest, scriptOf: ScriptOf): ScriptedResponse {
  const prompt = request.promptText;
  // Scenarios never share users, so any member the prompt shows names the scenario.
  const script = [...prompt.matchAll(USER_ID)].map((match) => scriptOf(match[1] ?? "")).find(Boolean);
  if (request.toolNames.includes("reply")) {
    return { toolCalls: [{ name: "reply", arguments: script?.quote ? { set_quote: true } : {} }] };
  }
  if (prompt.includes(REPLYER_ASKS)) {
    const scripted = script?.replies.shift();
    if (scripted !== undefined) return { text: scripted };
    const target = REPLYER_TARGET.exec(prompt);
    if (target) {
      const [, sender, said = ""] = target;
      return { text: `${sender}，你说「${clip(said.replace(/@\S+/g, "").trim(), 30)}」，我想想……` };
    }
  }
  if (prompt.includes('{"memories"')) return { text: '{"memories": []}' };
  return { text: "好的" };
}
