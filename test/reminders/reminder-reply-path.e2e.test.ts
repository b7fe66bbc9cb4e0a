/**
 * A due reminder goes through the reply path like a turn's reply: a reply extension's
 * before_send (one that needs no options from a planner) rewrites it, and an @全体成员 it adds
 * is removed by the outbound guard (chat.mentionAll off, the default); the member is still
 * mentioned. Over the wire: the OneBot stand-in, the scripted model, a real plugin process.
 */
import { afterEach, describe, expect, it } from "vitest";
import { PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { clearSeenCalls, extensionPlugin, seenCalls } from "../reply/extension-fixtures.ts";
import { ALICE, GROUP } from "../support/messages.ts";
import type { SentMessage } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";

let sandbox: PluginSandbox | undefined;
let scene: Scene | undefined;
afterEach(async () => {
  await scene?.close();
  sandbox?.remove();
  clearSeenCalls();
  scene = sandbox = undefined;
});

/** A before_send that signs the text and tries to @ everyone. */
const signing = extensionPlugin({
  name: "sign",
  options: "{ parameters: {} }",
  body: `return payload.phase === "before_send"
    ? { messages: [{ segments: [{ type: "at", data: "all" }, { type: "text", data: payload.text + " ——紬" }], quote_previous: false }] }
    : {};`,
});

type Segments = { type: string; data: Record<string, unknown> }[];
const segmentsOf = (sent: SentMessage) => sent.message as Segments;

async function reminded(mentionAll: boolean): Promise<{ sent: SentMessage; scene: Scene }> {
  sandbox = new PluginSandbox();
  sandbox.add("stamp", { "index.ts": signing });
  scene = await startScene({
    config: {
      plugins: { dirs: [sandbox.root] },
      chat: { mentionAll, groups: { [GROUP]: { persona: "你是这个群里的猫娘紬。" } } },
    },
  });
  const { llm, qq } = scene;
  qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: "/提醒 3s 交作业" });
  await qq.waitForSent((sent) => sent.text.includes("#1"), 8_000);
  llm.enqueue({ text: "Alice，该交作业啦！" });
  const sent = await qq.waitForSent((message) => message.text.includes("该交作业啦"), 10_000);
  return { sent, scene };
}

describe("reminders through the reply path", () => {
  it("passes a before_send extension and cannot @ everyone", async () => {
    const { sent, scene: open } = await reminded(false);
    const segments = segmentsOf(sent);
    expect(
      segments.filter((segment) => segment.type === "at").map((segment) => String(segment.data.qq)),
    ).toEqual([ALICE]);
    expect(sent.text).toContain("Alice，该交作业啦！ ——紬");
    const calls = seenCalls().filter((call) => call.phase === "before_send");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      extension: "stamp.sign",
      text: "Alice，该交作业啦！",
      chat: { user_id: ALICE },
    });
    // Worded from the prompt template, in the persona of the reminder's group.
    const wording = open.llm.requests.at(-1)!;
    expect(wording.promptText).toContain("提醒 TA：交作业");
    expect(JSON.stringify(wording.body.messages[0])).toContain("你是这个群里的猫娘紬。");
  }, 40_000);

  it("keeps an @ of everyone where chat.mentionAll allows it", async () => {
    const { sent } = await reminded(true);
    const mentioned = segmentsOf(sent).filter((segment) => segment.type === "at");
    expect(mentioned.map((segment) => String(segment.data.qq))).toEqual([ALICE, "all"]);
  }, 40_000);
});
