/**
 * The decoder and parser bombs against the process users run (`npm start`: the compiled build,
 * plain node), its /healthz asked every 50 ms throughout: a DOCX unpacking to 100 MB and a PDF
 * pdf.js would read for minutes in the knowledge folder at start, a SILK voice message of
 * 1 MB of empty packets, and fetch_page on a page of 700 nested <div>s. Before, these held the
 * event loop 12.9 s (the voice), ~22 s (the page) or took the heap (the documents, at every
 * start). Each is now bounded before it is decoded and decoded in a worker thread.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, serverBuildIsStale } from "../../scripts/build-server.ts";
import type { BotProcess } from "../support/bot-process.ts";
import { paragraphFloodDocx, textFloodPdf, tinyDocx } from "../support/documents.ts";
import { watchResponsiveness } from "../support/event-loop-lag.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type PictureServer, startPictureServer } from "../support/picture-server.ts";
import { type Scene, startProcessScene } from "../support/scene.ts";
import { SearchStandIn } from "../support/search-standin.ts";
import { waitFor } from "../support/wait.ts";

const NESTED = `<html><body>${"<div>".repeat(700)}deep${"</div>".repeat(700)}</body></html>`;
const SILK_BOMB = Buffer.concat([Buffer.from("\x02#!SILK_V3", "latin1"), Buffer.alloc(1024 * 1024)]);
/** Above this, the bot did not answer /healthz for long enough for a person to notice. */
const HELD_MS = 1_500;

let folder: string;
let scene: Scene<BotProcess>;
let files: PictureServer;
let search: SearchStandIn;
const held: Record<string, number> = {};

beforeAll(async () => {
  if (serverBuildIsStale()) await buildServer();
  folder = mkdtempSync(join(tmpdir(), "tsumugi-bombs-"));
  writeFileSync(join(folder, "flood.docx"), paragraphFloodDocx(100));
  writeFileSync(join(folder, "flood.pdf"), textFloodPdf(100));
  writeFileSync(join(folder, "guide.docx"), tinyDocx([{ text: "The dragon is weak to ice arrows." }]));
  files = await startPictureServer();
  search = await SearchStandIn.start(() => [], { nested: NESTED });
}, 120_000);

afterAll(async () => {
  console.info(`slowest /healthz answer while each ran (ms): ${JSON.stringify(held)}`);
  await scene?.close();
  await files?.close();
  await search?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("decoder bombs against the compiled bot process", { timeout: 120_000 }, () => {
  it("reads a folder of document bombs at start without holding the event loop", async () => {
    scene = await startProcessScene({
      compiled: true,
      config: {
        knowledge: { dirs: [folder], readTimeoutMs: 5_000 },
        llm: { models: { speech: ["main/scripted-whisper"] } },
        search: { provider: "searxng", url: search.baseUrl },
        media: { allowPrivateNetworks: true },
      },
    });
    const watch = watchResponsiveness(scene.bot.baseUrl);
    await waitFor(() => scene.bot.logs.some((line) => line.msg === "knowledge base ready"), 60_000);
    held.documents = Math.round(await watch.stop());
    const notes = scene.bot.logs
      .filter((line) => String(line.msg).startsWith("knowledge: "))
      .map((line) => line.msg);
    expect(notes).toEqual(
      expect.arrayContaining([
        "knowledge: cannot be read as DOCX: unpacks to over 64 MB, not read",
        "knowledge: quarantined, not read again until the file changes: its reader not done after 5000 ms",
      ]),
    );
    expect(held.documents).toBeLessThan(HELD_MS);
  });

  it("refuses a SILK voice message of empty packets without holding the event loop", async () => {
    const { bot, llm, qq } = scene;
    const watch = watchResponsiveness(bot.baseUrl);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "听不清" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention("听听这个") });
    const url = files.serve("/bomb.amr", { body: SILK_BOMB });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [{ type: "record", data: { file: "bomb.amr", url } }],
    });
    await qq.waitForSent((sent) => sent.text === "听不清", 30_000);
    held.voice = Math.round(await watch.stop());
    expect(bot.logs).toContainEqual(
      expect.objectContaining({
        msg: "voice message not fetched",
        reason: "SILK over 180 s (more than 9000 packets), not decoded",
      }),
    );
    expect(held.voice).toBeLessThan(HELD_MS);
  });

  it("answers fetch_page on 700 nested <div>s with a refusal, without holding the event loop", async () => {
    const { bot, llm, qq } = scene;
    const watch = watchResponsiveness(bot.baseUrl);
    llm.enqueue(
      { toolCalls: [{ name: "fetch_page", arguments: { url: `${search.baseUrl}/pages/nested` } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "这个页面读不了" },
    );
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: mention("看看这个网页"),
    });
    await qq.waitForSent((sent) => sent.text === "这个页面读不了", 30_000);
    held.page = Math.round(await watch.stop());
    expect(JSON.stringify(llm.requests.map((request) => request.body.messages))).toContain(
      "elements nested over 256 deep, not read",
    );
    expect(held.page).toBeLessThan(HELD_MS);
  });
});
