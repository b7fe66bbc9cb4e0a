import { afterEach, describe, expect, it } from "vitest";
import { ALICE, BOB, GROUP, mention, plain } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";

/** The chat lines of a planner request (history, then this turn's messages), without their labels. */
function chatLines(request: RecordedLlmRequest): string[] {
  const user = String(request.body.messages[1]!.content);
  const chat = user.slice(0, user.indexOf("\n\n## 新消息"));
  return chat
    .split("\n")
    .slice(1)
    .map((line) => line.replace(/^\[msg_id=[^\]]+\] \[[\d:]+\] /, ""));
}

/** A planner request's messages as the provider receives them, up to the end of its chat. */
function chatPrefix(request: RecordedLlmRequest): string {
  const serialised = JSON.stringify(request.body.messages);
  return serialised.slice(0, serialised.indexOf("\\n\\n## 新消息"));
}

describe("the history window moves in steps, so consecutive prompts share a cached prefix", () => {
  let scene: Scene;
  let llm: ScriptedLlmServer;

  /** The bot with this history window (`growth` 1: the window stays within maxMessages). */
  async function start(growth: number): Promise<void> {
    llm = await ScriptedLlmServer.start();
    scene = await startScene({
      llm,
      config: { chat: { history: { maxMessages: 6, dropFraction: 0.5, growth } } },
    });
  }

  afterEach(() => scene.close());

  /** Bob says `chatter`, then Alice asks the bot `question`; resolves once the turn is over. */
  async function turn(count: number, chatter: string, question: string): Promise<void> {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: `答${count}` });
    scene.qq.pushGroupMessage({ groupId: GROUP, userId: BOB, nickname: "Bob", message: plain(chatter) });
    scene.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: mention(question),
    });
    await scene.bot.turnFinished(count);
  }

  it("appends to the chat while it fits and drops its oldest half at once when full", async () => {
    await start(1);
    await turn(1, "闲聊一", "问题一");
    await turn(2, "闲聊二", "问题二");
    await turn(3, "闲聊三", "问题三");
    await turn(4, "闲聊四", "问题四");
    const planners = llm.requestsWithTool("reply");
    expect(planners).toHaveLength(4);
    const chats = planners.map(chatLines);

    // Turn 2 reads turn 1's prompt again, chat and all, and adds to its end.
    expect(chats[0]).toEqual(["Bob(30002): 闲聊一", "Alice(30001): 问题一"]);
    expect(chats[1]).toEqual([...chats[0]!, "紬(你): 答1", "Bob(30002): 闲聊二", "Alice(30001): 问题二"]);
    expect(chatPrefix(planners[1]!).startsWith(chatPrefix(planners[0]!))).toBe(true);

    // Turn 3 would show 8 earlier messages (more than 6): it keeps the newest 3 and starts anew.
    expect(chats[2]).toEqual([
      "Alice(30001): 问题二",
      "紬(你): 答2",
      "Bob(30002): 闲聊三",
      "Alice(30001): 问题三",
    ]);

    // Turn 4 fits again (6 earlier messages): it extends turn 3's prompt instead of sliding.
    expect(chats[3]).toEqual([...chats[2]!, "紬(你): 答3", "Bob(30002): 闲聊四", "Alice(30001): 问题四"]);
    expect(chatPrefix(planners[3]!).startsWith(chatPrefix(planners[2]!))).toBe(true);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("grows beyond maxMessages to growth × maxMessages, extending each prompt, then steps back to half of maxMessages", async () => {
    await start(2);
    for (let count = 1; count <= 5; count++) await turn(count, `闲聊${count}`, `问题${count}`);
    const planners = llm.requestsWithTool("reply");
    const chats = planners.map(chatLines);

    // Turns 2 to 4 show 4, 7 and 10 earlier messages (up to 12 fit): each extends the one before.
    for (const count of [1, 2, 3]) {
      expect(chatPrefix(planners[count]!).startsWith(chatPrefix(planners[count - 1]!))).toBe(true);
    }
    expect(chats[3]).toHaveLength(11);
    expect(chats[3]![0]).toBe("Bob(30002): 闲聊1");
    // Turn 5 would show 13 earlier messages: it keeps the newest 3 and starts anew.
    expect(chats[4]).toEqual([
      "Alice(30001): 问题4",
      "紬(你): 答4",
      "Bob(30002): 闲聊5",
      "Alice(30001): 问题5",
    ]);
    expect(llm.unscriptedRequests).toEqual([]);
  });
});
