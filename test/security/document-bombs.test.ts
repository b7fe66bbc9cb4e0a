/**
 * Documents an attacker drops into a knowledge folder (an upload, a shared folder): a 0.3 MB
 * DOCX unpacking to gigabytes, a 0.25 MB PDF whose one page pdf.js reads for minutes. They were
 * read on the event loop and took the bot's heap at every start (the file still in the folder:
 * a crash loop). Now a DOCX is refused by what it unpacks to, every document is read in a
 * worker thread with a memory and a time limit, and a document that ran out of either — or was
 * being read when the bot stopped — is quarantined: noted, logged, shown, not read again until
 * the file changes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { QUARANTINED } from "../../src/knowledge/indexer.ts";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { paragraphFloodDocx, textFloodPdf, tinyDocx } from "../support/documents.ts";
import { watchEventLoop } from "../support/event-loop-lag.ts";

let folder: string;
let bots: BotHarness[] = [];
afterEach(async () => {
  for (const bot of bots) await bot.dispose();
  bots = [];
  rmSync(folder, { recursive: true, force: true });
});

/**
 * A bot on the folder, once its documents are read, and the event loop's worst lag while they
 * were (the bot reads its folders after it has started).
 */
async function botOn(
  dataDir: string | undefined,
  knowledge: Record<string, unknown> = {},
): Promise<BotHarness & { lagMs: number }> {
  const bot = await startBot({
    ...(dataDir === undefined ? {} : { dataDir }),
    config: { knowledge: { dirs: [folder], ...knowledge } },
  });
  bots.push(bot);
  const watch = watchEventLoop();
  await bot.waitForLog((line) => line.msg === "knowledge base ready", 90_000);
  return Object.assign(bot, { lagMs: watch.stop() });
}

async function notes(bot: BotHarness): Promise<Record<string, string | undefined>> {
  const listed = await apiClient(bot.baseUrl).get("/api/knowledge");
  const documents = listed.body.documents as Array<{ name: string; note?: string; chunkCount: number }>;
  return Object.fromEntries(documents.map((document) => [document.name, document.note]));
}

describe("documents crafted to exhaust the reader", { timeout: 120_000 }, () => {
  it("refuses a DOCX by what it unpacks to, and still reads the folder's other documents", async () => {
    folder = mkdtempSync(join(tmpdir(), "tsumugi-bombs-"));
    const bomb = paragraphFloodDocx(100);
    expect(bomb.length).toBeLessThan(400_000);
    writeFileSync(join(folder, "flood.docx"), bomb);
    writeFileSync(join(folder, "guide.docx"), tinyDocx([{ text: "The dragon is weak to ice arrows." }]));
    const bot = await botOn(undefined);
    expect(await notes(bot)).toEqual({
      "flood.docx": "cannot be read as DOCX: unpacks to over 64 MB, not read",
      "guide.docx": undefined,
    });
    expect(bot.lagMs).toBeLessThan(300);
  });

  it("quarantines a PDF that takes longer than knowledge.readTimeoutMs, and does not read it again at the next start", async () => {
    folder = mkdtempSync(join(tmpdir(), "tsumugi-bombs-"));
    writeFileSync(join(folder, "flood.pdf"), textFloodPdf(100));
    const first = await botOn(undefined, { readTimeoutMs: 3_000 });
    const note = `${QUARANTINED}: its reader not done after 3000 ms`;
    expect(await notes(first)).toEqual({ "flood.pdf": note });
    expect(first.lagMs).toBeLessThan(300);
    expect(first.logs.some((line) => line.msg === `knowledge: ${note}`)).toBe(true);
    await first.stop();

    const again = await botOn(first.dataDir, { readTimeoutMs: 3_000 });
    expect(await notes(again)).toEqual({ "flood.pdf": note });
    expect(again.logs.some((line) => String(line.msg).startsWith("knowledge: quarantined"))).toBe(false);
  });

  it("quarantines a document the bot was reading when it stopped, instead of reading it at every start", async () => {
    folder = mkdtempSync(join(tmpdir(), "tsumugi-bombs-"));
    writeFileSync(join(folder, "guide.docx"), tinyDocx([{ text: "The dragon is weak to ice arrows." }]));
    const first = await botOn(undefined);
    await first.stop();
    // What a bot killed during the read leaves behind (the note is set before each read).
    const db = new Database(join(first.dataDir, "tsumugi.db"));
    db.prepare("UPDATE knowledge_documents SET note = 'being read'").run();
    db.close();

    const again = await botOn(first.dataDir);
    const note = `${QUARANTINED}: the bot stopped while reading it (it may have run out of memory)`;
    expect(await notes(again)).toEqual({ "guide.docx": note });
    expect(again.logs.some((line) => line.msg === `knowledge: ${note}`)).toBe(true);
  });
});
