/**
 * Commands are answered before and without the model, and their answers were counted by no
 * limit: a member sending thirty admin commands got thirty refusals, thirty `/help`s thirty
 * help texts — the bot flooding the group for them. A command now counts in its sender's and
 * its group's turns per minute as a turn does (over either it is not run: the limit's notice
 * once, then nothing), and a member refused an admin command is told once, then not again for
 * ten minutes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ALICE, BOB, GROUP, SELF } from "../support/messages.ts";
import type { WireSegment } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { sleep } from "../support/wait.ts";

const REFUSAL = "只有管理员可以使用这个命令。";
const TOO_FAST = "说得太快了，稍后再试。";
const LIMITS = { limits: { userTurnsPerMinute: 6, groupTurnsPerMinute: 20 }, bot: { admins: [ALICE] } };

let scene: Scene | undefined;
afterEach(async () => {
  await scene?.close();
  scene = undefined;
});

function say(s: Scene, userId: string, message: WireSegment[] | string): void {
  s.qq.pushGroupMessage({ groupId: GROUP, userId, nickname: userId === ALICE ? "Alice" : "Bob", message });
}

const toGroup = (s: Scene) => s.qq.sent.filter((sent) => sent.groupId === GROUP);

describe("command answers under the rate limits", { timeout: 60_000 }, () => {
  it("answers a member's thirty admin commands with one refusal, then stays quiet", async () => {
    scene = await startScene({ config: LIMITS });
    for (let n = 0; n < 30; n++) say(scene, BOB, "/quiet 10");
    await scene.qq.waitForSent((sent) => sent.text === REFUSAL, 10_000);
    await sleep(1_500);
    expect(toGroup(scene).map((sent) => sent.text)).toEqual([REFUSAL]);
  });

  it("answers a member's thirty /help userTurnsPerMinute times, then says the limit once", async () => {
    scene = await startScene({ config: LIMITS });
    for (let n = 0; n < 30; n++) say(scene, BOB, "/help");
    await scene.qq.waitForSent((sent) => sent.text === TOO_FAST, 10_000);
    await sleep(1_500);
    const texts = toGroup(scene).map((sent) => sent.text);
    expect(texts).toHaveLength(7);
    expect(texts.filter((text) => text === TOO_FAST)).toHaveLength(1);
  });

  it("still answers a person who uses a command and then asks something a few seconds later", async () => {
    scene = await startScene({ config: LIMITS });
    say(scene, ALICE, "/help");
    await scene.qq.waitForSent((sent) => sent.groupId === GROUP, 10_000);
    await sleep(2_000);
    scene.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "在的，有什么事？" });
    say(scene, ALICE, [
      { type: "at", data: { qq: SELF } },
      { type: "text", data: { text: " 在吗，帮我看看这个" } },
    ]);
    await scene.qq.waitForSent((sent) => sent.text === "在的，有什么事？", 10_000);
    // An admin's command is answered, and a second one too (well within the limit).
    say(scene, ALICE, "/quiet 5");
    await scene.qq.waitForSent((sent) => sent.text?.includes("5 分钟") === true, 10_000);
    expect(toGroup(scene)).toHaveLength(3);
  });
});
