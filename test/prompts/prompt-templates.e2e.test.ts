import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { runRefusedBotProcess } from "../support/bot-process.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { RecordedLlmRequest } from "../support/scripted-llm-server.ts";

const IDENTITY = "你的名字是紬（也有人叫你 tsumugi）。\n你是群里的一名普通成员，说话简短自然。";

const systemPrompt = (request: RecordedLlmRequest | undefined) => request?.body.messages[0]?.content;
const lastMessage = (request: RecordedLlmRequest | undefined) => request?.body.messages.at(-1)?.content;

describe("prompt templates users edit", () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A data folder holding `my-prompts/` with these files, removed after the test. */
  const dataDirWithPrompts = (files: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-prompts-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    mkdirSync(join(dataDir, "my-prompts"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dataDir, "my-prompts", name), text);
    return dataDir;
  };

  /** One @mention answered by reply + the replyer's text; resolves once that turn has finished. */
  const replyOnce = async (scene: Scene) => {
    const turn = scene.bot.events.filter((event) => event.type === "turn.finished").length + 1;
    scene.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好" });
    scene.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention(`第 ${turn} 句`) });
    const finished = await scene.bot.turnFinished(turn);
    expect(finished.data.status).toBe("replied");
  };

  /** Runs turns until `read()` is `expected`: an edit reaches a turn soon after it is saved. */
  const turnsUntil = async (scene: Scene, read: () => unknown, expected: string) => {
    const deadline = Date.now() + 10_000;
    while (read() !== expected) {
      expect(Date.now(), `no turn saw the edit within 10 s; the last one read: ${read()}`).toBeLessThan(
        deadline,
      );
      await replyOnce(scene);
    }
  };

  it("puts a template from prompts.dir and one from the config into the system prompts, and follows edits of both", async () => {
    const dataDir = dataDirWithPrompts({ "planner.md": "{{identity}}\n\n（文件夹里的规划说明）\n" });
    const scene = await startScene({
      dataDir,
      configFile: true,
      config: {
        prompts: { dir: "my-prompts", templates: { replyer: "{{identity}}\n（配置里的回复说明）" } },
      },
    });
    cleanups.push(() => scene.close());

    await replyOnce(scene);
    const planner = scene.llm.lastRequestWithTool("reply");
    expect(systemPrompt(planner)).toBe(`${IDENTITY}\n\n（文件夹里的规划说明）`);
    // Templates the folder lacks stay the shipped ones.
    expect(lastMessage(planner)).toMatch(/\n请决定你的行动。$/);
    expect(systemPrompt(scene.llm.lastRequestWithoutTool("reply"))).toBe(`${IDENTITY}\n（配置里的回复说明）`);

    writeFileSync(join(dataDir, "my-prompts", "planner.md"), "{{identity}}\n\n（改过的规划说明）\n");
    const plannerSystem = () => systemPrompt(scene.llm.lastRequestWithTool("reply"));
    await turnsUntil(scene, plannerSystem, `${IDENTITY}\n\n（改过的规划说明）`);

    const configFile = scene.bot.configFile!;
    const config = parse(readFileSync(configFile, "utf8"));
    config.prompts.templates.replyer = "{{identity}}\n（改过的回复说明）";
    writeFileSync(configFile, stringify(config));
    const replyerSystem = () => systemPrompt(scene.llm.lastRequestWithoutTool("reply"));
    await turnsUntil(scene, replyerSystem, `${IDENTITY}\n（改过的回复说明）`);
  });

  it("speaks English to the models with prompts.language: en", async () => {
    const scene = await startScene({ config: { prompts: { language: "en" } } });
    cleanups.push(() => scene.close());

    await replyOnce(scene);
    const planner = scene.llm.lastRequestWithTool("reply")!;
    expect(systemPrompt(planner)).toMatch(
      /^Your name is 紬 \(some people call you tsumugi\)\.\nYou are an ordinary member of this group\./,
    );
    expect(lastMessage(planner)).toMatch(
      /^## Chat history \(QQ group 20000\)\n[\s\S]*\nDecide what to do\.$/,
    );
    const reply = planner.body.tools?.find((tool) => tool.function.name === "reply");
    expect(reply?.function.description).toBe("Reply in the current chat.");
    expect(lastMessage(scene.llm.lastRequestWithoutTool("reply"))).toMatch(/\nWrite the reply\.$/);
  });

  it("refuses to start on an unknown placeholder or template name, exit 2 with one line each", async () => {
    const dataDir = dataDirWithPrompts({ "planner.md": "{{botname}} 的规划说明\n" });
    const { code, stderrLines } = await runRefusedBotProcess({
      dataDir,
      config: { prompts: { dir: "my-prompts", templates: { plannr: "x", summary: "{{who}} 总结一下" } } },
    });
    expect(code).toBe(2);
    expect(stderrLines).toEqual([
      "prompts.templates.plannr: unknown template (the names are listed in docs/prompts.md)",
      `prompts.dir: ${join(dataDir, "my-prompts", "planner.md")}: unknown placeholder {{botname}} in template planner (known: identity, channel_prompts, expressions)`,
      "prompts.templates.summary: unknown placeholder {{who}} in template summary (known: identity)",
    ]);
  });
});
