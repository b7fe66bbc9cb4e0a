import { afterEach, describe, expect, it } from "vitest";
import { ALICE, GROUP, mention, OTHER_GROUP } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedStep } from "../support/scripted-llm-server.ts";

/** 40 characters: 8 s at 5 a second, capped at 1.5 s. */
const SLOW_TEXT = "这是一条要慢慢打出来的回复，".repeat(3).slice(0, 40);
/** 1 character: 0.2 s. */
const QUICK_TEXT = "好";

describe("the typing delay (chat.typingDelay), over the real wire", () => {
  let scene: Scene | undefined;
  afterEach(async () => {
    await scene?.close();
    scene = undefined;
  });

  it("holds each message for its length over the typing speed, capped, without holding other chats", async () => {
    scene = await startScene({ config: { chat: { typingDelay: { charsPerSecond: 5, maxMs: 1_500 } } } });
    const { qq, llm } = scene;
    /** When the replyer answered each text: the message is ready to leave from then on. */
    const written = new Map<string, number>();
    const step: ScriptedStep = (request) => {
      if (request.toolNames.includes("reply")) return { toolCalls: [{ name: "reply", arguments: {} }] };
      const text = request.promptText.includes("慢慢说") ? SLOW_TEXT : QUICK_TEXT;
      written.set(text, Date.now());
      return { text };
    };
    llm.enqueue(step, step, step, step);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("慢慢说") });
    const slowSent = qq.waitForSent((sent) => sent.text === SLOW_TEXT, 10_000).then(() => Date.now());
    await waitUntil(() => written.has(SLOW_TEXT));
    qq.pushGroupMessage({ groupId: OTHER_GROUP, userId: ALICE, message: mention("快说") });
    const quickSent = await qq.waitForSent((sent) => sent.text === QUICK_TEXT, 10_000).then(() => Date.now());
    const slowAt = await slowSent;

    const slowDelay = slowAt - written.get(SLOW_TEXT)!;
    const quickDelay = quickSent - written.get(QUICK_TEXT)!;
    expect(slowDelay).toBeGreaterThanOrEqual(1_450);
    expect(slowDelay).toBeLessThan(5_000);
    expect(quickDelay).toBeGreaterThanOrEqual(180);
    // The other group's reply left while the first one was still being "typed".
    expect(quickSent).toBeLessThan(slowAt);
    expect(llm.unscriptedRequests).toEqual([]);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
