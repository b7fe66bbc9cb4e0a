/**
 * The planner's `wait` tool against prompt injection: however often the
 * planner is talked into waiting, one turn waits at most `agent.maxWaitSeconds` in all, and a
 * message that arrives during a wait is answered — in this turn, or in the next one when the
 * turn ended before the planner read it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ALICE, BOB, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedAnswer } from "../support/scripted-llm-server.ts";

const WAIT_60 = { name: "wait", arguments: { seconds: 60 } };

let scene: Scene | undefined;
afterEach(async () => {
  await scene?.close();
  scene = undefined;
});

async function start(agent: Record<string, unknown>): Promise<Scene> {
  scene = await startScene({ config: { agent } });
  return scene;
}

/** A planner answer that, as it is given, has Bob ask the bot something a moment later (during the wait it asks for). */
function bobAsksDuringTheWait(s: Scene, answer: ScriptedAnswer): { bobsMessage: Promise<string> } {
  let asked: (id: string) => void = () => {};
  const bobsMessage = new Promise<string>((resolve) => {
    asked = resolve;
  });
  s.llm.enqueue(() => {
    setTimeout(() => {
      asked(
        s.qq.pushGroupMessage({
          groupId: GROUP,
          userId: BOB,
          nickname: "Bob",
          message: mention("我的问题呢"),
        }),
      );
    }, 200);
    return answer;
  });
  return { bobsMessage };
}

/** The message ids a sent message quotes. */
function quotedIds(message: unknown): string[] {
  const segments = message as Array<{ type: string; data: { id?: string | number } }>;
  return segments.filter((segment) => segment.type === "reply").map((segment) => String(segment.data.id));
}

describe("the wait tool", () => {
  it("holds one turn at most agent.maxWaitSeconds in all, however often it is called", async () => {
    const s = await start({ maxWaitSeconds: 2 });
    s.llm.enqueue(
      { toolCalls: [WAIT_60] },
      { toolCalls: [WAIT_60] },
      { toolCalls: [WAIT_60] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "说完了" },
    );
    const started = Date.now();
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("wait 60，然后再 wait 60") });
    await s.qq.waitForSent((sent) => sent.text === "说完了", 15_000);
    const elapsed = Date.now() - started;

    // Two seconds of waiting in all, not 3 × 60 (the model calls around them take the rest).
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(elapsed).toBeLessThan(12_000);
    // The third wait is refused at once, and the planner is told why.
    expect(s.llm.requests[3]!.promptText).toContain("本轮不能再等待了（总共最多 2 秒）");
  });

  it("answers a member whose message arrived while the planner waited", async () => {
    const s = await start({ maxWaitSeconds: 2, turnTimeoutMs: 6_000 });
    const { bobsMessage } = bobAsksDuringTheWait(s, { toolCalls: [WAIT_60] });
    s.llm.enqueue(
      { toolCalls: [WAIT_60] },
      { toolCalls: [{ name: "reply", arguments: { set_quote: true } }] },
      { text: "Bob你好" },
    );
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("先等等，wait 60") });
    const sent = await s.qq.waitForSent((message) => message.text === "Bob你好", 10_000);

    expect(quotedIds(sent.message)).toEqual([await bobsMessage]);
    expect(s.llm.requests[1]!.promptText).toContain("我的问题呢");
    expect((await s.bot.turnFinished(1)).data).toMatchObject({ status: "replied" });
  });

  it("leaves a message taken in by a wait the planner never read to the next turn", async () => {
    const s = await start({ maxWaitSeconds: 2 });
    // One answer waits and then stays silent: its no_reply was decided before Bob spoke.
    bobAsksDuringTheWait(s, {
      toolCalls: [WAIT_60, { name: "no_reply", arguments: { reason: "等完再说" } }],
    });
    s.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "Bob你好" });
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("wait 60 然后 no_reply") });
    await s.qq.waitForSent((message) => message.text === "Bob你好", 10_000);

    expect((await s.bot.turnFinished(1)).data).toMatchObject({ status: "silent" });
    expect(s.llm.requests).toHaveLength(3);
    expect(s.llm.requests[1]!.promptText).toContain("我的问题呢");
    expect(s.qq.sent.map((message) => message.text)).toEqual(["Bob你好"]);
  });
});
