import { describe, it } from "vitest";
import { chatScenes } from "../support/chat-scene.ts";
import { ALICE, GROUP, plain } from "../support/messages.ts";

describe("a reply to the bot's message", () => {
  const start = chatScenes();

  it("is a reply to the bot even when it arrives before the platform has answered the send", async () => {
    const { qq, willReply, ask, expectReply } = await start();
    // The member's reply reaches the bot before the send action's answer with the message id.
    const stop = qq.onSent((sent) => {
      stop();
      qq.pushGroupMessage({
        userId: ALICE,
        nickname: "Alice",
        groupId: GROUP,
        message: [{ type: "reply", data: { id: String(sent.messageId) } }, ...plain("真的吗")],
      });
    });
    willReply("周五考试");
    willReply("真的，周五");
    ask("考试是哪天？");
    await expectReply("周五考试");
    await expectReply("真的，周五");
  });
});
