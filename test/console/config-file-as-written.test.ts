// The config file stays as its owner wrote it (issue 42): a save from the console's Config page
// and a group's talk value set from the Groups page change only the lines of the keys they
// change: flow maps stay one line without padding, sequences keep their indentation, comments
// and key order stay, long lines are not folded, and a `sqlite:` path is shown, not masked.
import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { withModelSetup } from "../../src/api/config-file.ts";
import { apiClient } from "../support/api-client.ts";
import { startBot } from "../support/bot-harness.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";

const TOKEN = "console-token";

/** A file as a person writes it, in the styles the library would otherwise rewrite. */
function handWritten(storageUrl: string, baseUrl: string): string {
  return `# My bot — written by hand
server: {port: 0, token: ${TOKEN}}   # the console's token
storage:
  url: ${storageUrl}
bot: {name: 紬, admins: ["10001"]}
llm:
  providers:
  - id: main
    type: openai-compatible
    baseUrl: ${baseUrl}
    apiKey: test-key
  models: {planner: [main/scripted-model], replyer: [main/scripted-model]}

chat:
  realtime: {windowMs: 30, maxWindowMs: 300}
  groups:
    "20001":
      participation: {talkValue: 0.3}   # a quiet group
log: {level: debug}
`;
}

/** The lines of `after` that differ from `before`, where both have as many lines. */
function changedLines(before: string, after: string): string[] {
  const old = before.split("\n");
  const now = after.split("\n");
  expect(now).toHaveLength(old.length);
  return now.filter((line, index) => line !== old[index]);
}

describe("a console save keeps the config file as written", () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("changes only the line of the key the Config page and the Groups page changed", async () => {
    const llm = await ScriptedLlmServer.start();
    const bot = await startBot({ llm, configFile: true, config: { server: { token: TOKEN } } });
    cleanups.push(
      () => llm.close(),
      () => bot.dispose(),
    );
    const file = bot.configFile!;
    const storageUrl = `sqlite:${bot.dataDir}/tsumugi.db`;
    const original = handWritten(storageUrl, llm.baseUrl);
    writeFileSync(file, original);
    const api = apiClient(bot.baseUrl, TOKEN);
    const shown = async () => (await api.get("/api/config")).body.yaml as string;
    // Applied, so the save below changes bot.name alone.
    await bot.waitForLog((line) => line.msg === "config file reloaded", 10_000);

    // Shown as written, the secrets hidden in place, the sqlite: path visible.
    const yaml = await shown();
    expect(changedLines(original, yaml)).toEqual([
      'server: {port: 0, token: "********"}   # the console\'s token',
      '    apiKey: "********"',
    ]);
    expect(yaml).toContain(`  url: ${storageUrl}\n`);

    const saved = await api.put("/api/config", { yaml: yaml.replace("name: 紬", "name: 小紬") });
    expect(saved.body).toMatchObject({ saved: true, changedKeys: ["bot.name"] });
    const afterSave = readFileSync(file, "utf8");
    expect(changedLines(original, afterSave)).toEqual(['bot: {name: 小紬, admins: ["10001"]}']);

    const talk = await api.post("/api/participation/talk-value", { group: "20001", talkValue: 0.8 });
    expect(talk.status).toBe(200);
    const afterTalk = readFileSync(file, "utf8");
    expect(changedLines(afterSave, afterTalk)).toEqual([
      "      participation: {talkValue: 0.8}   # a quiet group",
    ]);

    // A group the file does not have yet: its lines are added, every other line stays.
    await api.post("/api/participation/talk-value", { group: "20002", talkValue: 0.5 });
    const added = readFileSync(file, "utf8").split("\n");
    expect(added.filter((line) => !afterTalk.split("\n").includes(line))).toEqual([
      '    "20002":',
      "      participation:",
      "        talkValue: 0.5",
    ]);
    expect(added).toHaveLength(afterTalk.split("\n").length + 3);
  });

  it("the first-run model set-up changes only the llm keys", () => {
    const original = `# set up by hand
server: {port: 6180}   # default port
bot: {name: 紬}
llm:
  providers: []
`;
    const text = withModelSetup(original, {
      providerId: "main",
      type: "openai-compatible",
      baseUrl: "https://api.example.com/v1",
      apiKey: "sk-x",
      model: "gpt",
    });
    expect(
      text.startsWith("# set up by hand\nserver: {port: 6180}   # default port\nbot: {name: 紬}\nllm:\n"),
    ).toBe(true);
    expect(text).toContain("    planner:\n      - main/gpt\n");
  });
});
