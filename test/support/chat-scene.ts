/**
 * The common end-to-end shape in a few words, like Koishi's `shouldReply`: a real bot with the
 * scripted model and the OneBot stand-in (scene.ts), asked as a group member would ask it.
 *
 *   const { willReply, ask, expectReply } = await start();
 *   willReply("在的");
 *   ask("在吗");
 *   await expectReply("在的");
 */
import { afterEach, expect } from "vitest";
import type { StartBotOptions } from "./bot-harness.ts";
import { ALICE, GROUP, mention, plain } from "./messages.ts";
import type { SentMessage } from "./onebot-standin.ts";
import { type Scene, type SceneOptions, startScene } from "./scene.ts";
import { sleep } from "./wait.ts";

export interface AskOptions {
  /** The asker's user id (default Alice). */
  from?: string;
  nickname?: string;
  /** In a private chat instead of the group. */
  privately?: boolean;
  /** Group messages @-mention the bot unless this is false (plain chatter). */
  mention?: boolean;
}

export interface ChatScene extends Scene {
  /** The model's next turn replies with `text`: the planner calls `reply`, the replyer says `text`. */
  willReply(text: string): void;
  /** Sends `text` to the bot (default: Alice @-mentions it in the group); returns the message id. */
  ask(text: string, options?: AskOptions): string;
  /**
   * Waits for the bot's next message not checked yet (default 8 s) and checks its text: equal to
   * a string, matching a RegExp. Resolves with the message for further checks.
   */
  expectReply(expected: string | RegExp, timeoutMs?: number): Promise<SentMessage>;
  /**
   * Waits `quietMs` (default 500), then for every turn started by then to finish, and checks that
   * the bot sent nothing since the last reply checked.
   */
  expectNoReply(quietMs?: number): Promise<void>;
}

/**
 * Starts chat scenes for the calling file's tests (`const start = chatScenes()` at the top of a
 * describe block); each is closed after its test.
 */
export function chatScenes(): (options?: StartBotOptions & SceneOptions) => Promise<ChatScene> {
  let open: Scene | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });
  return async (options) => {
    open = await startScene(options);
    return chatScene(open);
  };
}

function chatScene(scene: Scene): ChatScene {
  const { llm, bot, qq } = scene;
  // The bot's messages before this index have been checked by expectReply or expectNoReply.
  let checked = 0;
  return {
    ...scene,
    willReply(text) {
      llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text });
    },
    ask(text, options = {}) {
      const sender = { userId: options.from ?? ALICE, nickname: options.nickname ?? "Alice" };
      if (options.privately) return qq.pushPrivateMessage({ ...sender, message: plain(text) });
      const message = options.mention === false ? plain(text) : mention(text);
      return qq.pushGroupMessage({ ...sender, groupId: GROUP, message });
    },
    async expectReply(expected, timeoutMs = 8_000) {
      const sent = await qq.waitForSent((message) => qq.sent.indexOf(message) >= checked, timeoutMs);
      checked = qq.sent.indexOf(sent) + 1;
      if (typeof expected === "string") expect(sent.text).toBe(expected);
      else expect(sent.text).toMatch(expected);
      return sent;
    },
    async expectNoReply(quietMs = 500) {
      await sleep(quietMs);
      const started = bot.events.filter((event) => event.type === "turn.started").length;
      if (started > 0) await bot.turnFinished(started);
      expect(qq.sent.slice(checked).map((message) => message.text)).toEqual([]);
      checked = qq.sent.length;
    },
  };
}
