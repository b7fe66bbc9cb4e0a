import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { tinyDocx, tinyPdf } from "../support/documents.ts";
import { GROUP, groupSession, mention, OTHER_GROUP, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const ALICE = "30011";
const NO_REPLY = { toolCalls: [{ name: "no_reply", arguments: { reason: "test" } }] };

interface Scene {
  llm: ScriptedLlmServer;
  bot: BotHarness;
  qq: OneBotStandIn;
  folder: string;
}

const open: Scene[] = [];

afterEach(async () => {
  for (const s of open.splice(0)) {
    await s.qq.close();
    await s.bot.dispose();
    await s.llm.close();
    rmSync(s.folder, { recursive: true, force: true });
  }
});

/**
 * A knowledge folder with the shop's rules as a PDF, for GROUP only (its sidecar), and a game
 * guide as a DOCX for every chat; the bot running on it once both are indexed.
 */
async function scene(
  knowledge: Record<string, unknown> = {},
  embed?: (text: string) => number[],
): Promise<Scene> {
  const folder = mkdtempSync(join(tmpdir(), "tsumugi-knowledge-"));
  mkdirSync(join(folder, "shop"));
  writeFileSync(
    join(folder, "shop", "rules.pdf"),
    tinyPdf([["Opening hours: nine to five."], ["Refunds are accepted within 14 days of purchase."]]),
  );
  writeFileSync(join(folder, "shop", "rules.pdf.scope.yaml"), `chats: groups\ngroups: ["${GROUP}"]\n`);
  writeFileSync(
    join(folder, "guide.docx"),
    tinyDocx([
      { text: "Boss fight", heading: 1 },
      { text: "The dragon is weak to ice arrows." },
      { text: "Crafting", heading: 1 },
      { text: "Combine three iron ore for a sword." },
    ]),
  );
  const llm = await ScriptedLlmServer.start(embed ? { embed } : {});
  const embedding = embed ? { llm: { models: { embedding: ["main/scripted-model"] } } } : {};
  const bot = await startBot({ llm, config: { knowledge: { dirs: [folder], ...knowledge }, ...embedding } });
  await bot.waitForLog((line) => line.msg === "knowledge base ready");
  const qq = new OneBotStandIn({ selfId: SELF });
  await qq.connectReverse(bot.wsUrl);
  const opened = { llm, bot, qq, folder };
  open.push(opened);
  return opened;
}

function ask(qq: OneBotStandIn, group: string, text: string): string {
  return qq.pushGroupMessage({ groupId: group, userId: ALICE, card: "Alice", message: mention(text) });
}

function toolResult(request: RecordedLlmRequest | undefined): string {
  return String(request?.body.messages.findLast((message) => message.role === "tool")?.content);
}

describe("knowledge base", () => {
  it("brings the PDF passage answering a question into the planner's prompt, only in the group its scope names", async () => {
    const { llm, bot, qq } = await scene();
    llm.enqueue(NO_REPLY);
    ask(qq, GROUP, "how many days do I have for refunds?");
    await bot.turnFinished(1);
    const inScope = llm.requests[0]!;
    expect(inScope.promptText).toContain("Refunds are accepted within 14 days of purchase.");
    expect(inScope.promptText).toContain("rules.pdf, p. 2");
    expect(inScope.toolNames).toContain("search_knowledge");

    llm.enqueue(NO_REPLY);
    ask(qq, OTHER_GROUP, "how many days do I have for refunds?");
    await bot.turnFinished(2);
    const outOfScope = llm.requests[1]!;
    expect(outOfScope.promptText).not.toContain("14 days");
    // The guide is for every chat: the tool is still offered there.
    expect(outOfScope.toolNames).toContain("search_knowledge");
  });

  it("answers search_knowledge with the DOCX passage and its source, and never with another scope's document", async () => {
    const { llm, bot, qq } = await scene({ autoRetrieve: false });
    llm.enqueue(
      { toolCalls: [{ name: "search_knowledge", arguments: { query: "what is the dragon weak to" } }] },
      { toolCalls: [{ name: "search_knowledge", arguments: { query: "refunds days purchase" } }] },
      NO_REPLY,
    );
    ask(qq, OTHER_GROUP, "any tips for the boss?");
    await bot.turnFinished(1);
    expect(llm.requests[0]!.promptText).not.toContain("ice arrows");
    const found = JSON.parse(toolResult(llm.requests[1])) as {
      passages: Array<{ source: string; text: string }>;
    };
    expect(found.passages[0]).toEqual({
      source: "guide.docx › Boss fight",
      text: "The dragon is weak to ice arrows.",
    });
    expect(toolResult(llm.requests[2])).not.toContain("14 days");
  });

  it("indexes a document dropped into the folder while the bot runs, and offers no tool where nothing is in scope", async () => {
    const { llm, bot, qq, folder } = await scene();
    rmSync(join(folder, "guide.docx"));
    await bot.waitForLog((line) => line.msg === "knowledge: document removed");
    llm.enqueue(NO_REPLY);
    ask(qq, OTHER_GROUP, "hello");
    await bot.turnFinished(1);
    expect(llm.requests[0]!.toolNames).not.toContain("search_knowledge");

    writeFileSync(join(folder, "faq.md"), "# Parking\n\nParking is free on Sundays behind the station.\n");
    await bot.waitForLog(
      (line) => line.msg === "knowledge: document indexed" && String(line.path).endsWith("faq.md"),
    );
    llm.enqueue(NO_REPLY);
    ask(qq, OTHER_GROUP, "is parking free on sundays?");
    await bot.turnFinished(2);
    expect(llm.requests[1]!.promptText).toContain("faq.md › Parking");
    expect(llm.requests[1]!.promptText).toContain("Parking is free on Sundays behind the station.");
  });

  it("creates a knowledge folder that is not there at start, and indexes a document dropped into it", async () => {
    // Watching a missing folder would mean re-reading its parent on every write there (#52).
    const parent = mkdtempSync(join(tmpdir(), "tsumugi-knowledge-missing-"));
    const folder = join(parent, "knowledge");
    const llm = await ScriptedLlmServer.start();
    const bot = await startBot({ llm, config: { knowledge: { dirs: [folder] } } });
    const qq = new OneBotStandIn({ selfId: SELF });
    open.push({ llm, bot, qq, folder: parent });
    await waitFor(() => existsSync(folder), 10_000, "the knowledge folder to be created");
    // Watching starts just after the folder is made: a file written in between is not seen, so
    // it is written again until the bot has indexed it.
    const indexed = bot.waitForLog(
      (line) => line.msg === "knowledge: document indexed" && String(line.path).endsWith("faq.md"),
      30_000,
    );
    let done = false;
    void indexed.then(() => {
      done = true;
    });
    for (let attempt = 0; !done && attempt < 30; attempt++) {
      writeFileSync(join(folder, "faq.md"), `# Parking\n\nParking is free on Sundays (${attempt}).\n`);
      await sleep(1_000);
    }
    await indexed;
  });

  it("lets the console list documents and passages, upload one with a scope, change a scope and see what a question retrieves and why", async () => {
    const { bot } = await scene();
    const api = apiClient(bot.baseUrl);
    const listed = await api.get("/api/knowledge");
    expect(listed.body.documents.map((d: { name: string }) => d.name)).toEqual([
      "guide.docx",
      "shop/rules.pdf",
    ]);
    const rules = listed.body.documents[1];
    expect(rules.scope).toEqual({ chats: "groups", groups: [GROUP], autoRetrieve: true });
    const chunks = await api.get(`/api/knowledge/${rules.id}/chunks`);
    expect(chunks.body.chunks.map((c: { page: number; text: string }) => [c.page, c.text])).toEqual([
      [1, "Opening hours: nine to five."],
      [2, "Refunds are accepted within 14 days of purchase."],
    ]);

    const asked = { query: "refunds within how many days", sessionId: groupSession(OTHER_GROUP) };
    expect((await api.post("/api/knowledge/query", asked)).body.hits).toEqual([]);
    const rescoped = await api.put(`/api/knowledge/${rules.id}/scope`, {
      chats: "all",
      groups: [],
      autoRetrieve: false,
    });
    expect(rescoped.status).toBe(200);
    expect(rescoped.body.document.scope).toEqual({ chats: "all", groups: [], autoRetrieve: false });
    const found = await api.post("/api/knowledge/query", asked);
    expect(found.body.hits[0]).toMatchObject({
      source: "rules.pdf, p. 2",
      text: "Refunds are accepted within 14 days of purchase.",
      autoRetrieve: false,
      similarity: null,
    });
    expect(found.body.hits[0].bm25).toBeGreaterThan(0);

    const uploaded = await api.post("/api/knowledge/upload", {
      name: "notes.md",
      contentBase64: Buffer.from("# Wifi\n\nThe wifi password is on the fridge.\n").toString("base64"),
      scope: { chats: "private", groups: [], autoRetrieve: true },
    });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.document).toMatchObject({
      name: "notes.md",
      chunkCount: 1,
      scope: { chats: "private" },
    });
    const wifi = { query: "wifi password", sessionId: `onebot:${SELF}:private:${ALICE}` };
    expect((await api.post("/api/knowledge/query", wifi)).body.hits[0].source).toBe("notes.md › Wifi");
    expect(
      (await api.post("/api/knowledge/query", { ...wifi, sessionId: groupSession(GROUP) })).body.hits,
    ).toEqual([]);
    const refused = await api.post("/api/knowledge/upload", { name: "../escape.md", contentBase64: "eA==" });
    expect(refused.status).toBe(400);
  });

  it("with an embedding model, finds a passage that shares no word with the question (hybrid ranking)", async () => {
    // Texts about the dragon (however named) point one way, everything else another.
    const embed = (text: string) => (/dragon|wyrm/i.test(text) ? [1, 0, 0] : [0, 1, 0]);
    const { llm, bot, qq } = await scene({}, embed);
    llm.enqueue(NO_REPLY);
    ask(qq, OTHER_GROUP, "wyrm weakness?");
    await bot.turnFinished(1);
    const noVectors = bot.logs.some((line) => String(line.msg).includes("PostgreSQL has no pgvector"));
    if (process.env.TSUMUGI_TEST_STORAGE === "postgres" && noVectors) {
      // A PostgreSQL without pgvector searches by full text only, says so once, and finds nothing
      // for a question that shares no word with any passage.
      expect(bot.logs.filter((line) => String(line.msg).includes("no pgvector"))).toHaveLength(1);
      expect(llm.requests[0]!.promptText).not.toContain("The dragon is weak to ice arrows.");
      return;
    }
    expect(llm.requests[0]!.promptText).toContain("The dragon is weak to ice arrows.");
    expect(llm.requests[0]!.promptText).not.toContain("iron ore");
  });
});
