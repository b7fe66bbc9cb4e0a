/**
 * Poison frames between ordinary messages (isolation of bad input): a segment
 * nested 100,000 deep, a frame that is not JSON, an event type nobody knows, and a message
 * with 20,000 segments arrive in the same burst as two members' ordinary messages. The real
 * bot process refuses each bad frame with one log line, keeps both neighbours, and still
 * answers the next mention exactly once.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { health } from "../support/bot-api.ts";
import type { BotProcess } from "../support/bot-process.ts";
import { BOB, GROUP, plain, SELF } from "../support/messages.ts";
import { type Scene, startProcessScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";

const CAROL = "30003";
const MALLORY = "30666";

/** A group message event as text, with `message` spliced in as raw JSON. */
function groupEventText(messageId: number, userId: string, messageJson: string): string {
  const head = JSON.stringify({
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    time: Math.floor(Date.now() / 1000),
    self_id: Number(SELF),
    group_id: Number(GROUP),
    user_id: Number(userId),
    message_id: messageId,
    sender: { user_id: Number(userId), nickname: "mallory" },
    raw_message: "",
    font: 0,
  });
  return `${head.slice(0, -1)},"message":${messageJson}}`;
}

describe("poison frames among ordinary messages", () => {
  let scene: Scene<BotProcess> | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
  });

  it("refuses each bad frame with one log line and keeps its neighbours", async () => {
    scene = await startProcessScene();
    const { llm, bot, qq } = scene;
    await waitFor(
      async () => (await health(bot)).adapters.some((account) => account.connected),
      10_000,
      "the account connected",
    );

    const depth = 100_000;
    const deep = `[{"type":"text","data":{"text":"x","extra":${"[".repeat(depth)}${"]".repeat(depth)}}}]`;
    const wide = JSON.stringify(
      Array.from({ length: 20_000 }, () => ({ type: "text", data: { text: "w" } })),
    );
    const bobId = qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: plain("鲍勃的普通消息") });
    qq.pushRaw(groupEventText(900_001, MALLORY, deep));
    qq.pushRaw("{not json at all");
    qq.pushEvent({ post_type: "something_new", detail: "an event type nobody knows" });
    qq.pushRaw(groupEventText(900_002, MALLORY, wide));
    const carolId = qq.pushGroupMessage({ groupId: GROUP, userId: CAROL, message: plain("卡萝的普通消息") });

    // The bot is still up and answers the next mention exactly once.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "还在" });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: CAROL,
      message: [{ type: "at", data: { qq: SELF } }, ...plain(" 还在吗")],
    });
    await qq.waitForSent((sent) => sent.text === "还在", 15_000);
    expect((await fetch(`${bot.baseUrl}/healthz`)).status).toBe(200);

    const refusals = bot.logs.filter((line) => line.msg === "onebot message event refused");
    expect(refusals).toHaveLength(2);
    expect(refusals.map((line) => String(line.messageId))).toEqual(["900001", "900002"]);
    expect(bot.logs.filter((line) => line.msg === "onebot frame ignored")).toHaveLength(1);

    await bot.kill("SIGTERM");
    const db = new Database(join(bot.dataDir, "tsumugi.db"), { readonly: true });
    try {
      const stored = db
        .prepare(
          "SELECT user_id AS userId, message_id AS messageId FROM messages WHERE user_id != ? ORDER BY id",
        )
        .all(SELF) as Array<{ userId: string; messageId: string }>;
      expect(stored.slice(0, 2)).toEqual([
        { userId: BOB, messageId: bobId },
        { userId: CAROL, messageId: carolId },
      ]);
      expect(stored.some((row) => row.userId === MALLORY)).toBe(false);
      expect(db.prepare("SELECT count(*) AS n FROM quarantine").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    expect(qq.sent.filter((sent) => sent.text === "还在")).toHaveLength(1);
  });
});
