/**
 * Describing pictures: the framework's own time per picture, beyond the fetch and
 * the model call.
 *
 * 1. A new picture: a turn's `describe` with the real fetcher (the picture server on
 *    127.0.0.1), the real LLM client (the scripted model over HTTP), the real SQLite store and
 *    monitor. Framework time is the wall time minus the time spent awaiting the fetch and the
 *    model call.
 * 2. A cache hit: the same file id in a later turn: a store lookup, no fetch, no model call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmClient } from "../src/llm/llm-client.ts";
import type { LlmRequest } from "../src/llm/types.ts";
import { createLogger } from "../src/log/logger.ts";
import { PictureDecoder } from "../src/media/picture-decoder.ts";
import { PictureDescriber } from "../src/media/picture-describer.ts";
import { createPictureFetcher } from "../src/media/picture-fetcher.ts";
import { StickerCollection } from "../src/media/sticker-collection.ts";
import { TurnPictures } from "../src/media/turn-pictures.ts";
import type { PictureFetcher } from "../src/media/types.ts";
import type { Segment } from "../src/message/segment.ts";
import { MonitorHub } from "../src/monitor/monitor.ts";
import { PromptLibrary } from "../src/prompts/prompt-library.ts";
import { openStore } from "../src/store/open-store.ts";
import { startPictureServer } from "../test/support/picture-server.ts";
import { encodeRgbaPng } from "../test/support/pictures.ts";
import { ScriptedLlmServer } from "../test/support/scripted-llm-server.ts";
import { percentile, round } from "./child.ts";

const WARMUP = 30;
const PICTURES = 300;

export async function benchPictures(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-pictures-"));
  const logger = createLogger({ level: "silent" });
  const stores = await openStore(`sqlite:${join(dataDir, "tsumugi.db")}`, logger);
  const server = await startPictureServer();
  const llm = await ScriptedLlmServer.start({ whenEmpty: { text: "一只橘猫趴在键盘上" } });
  const client = new LlmClient({
    providers: [
      {
        id: "main",
        type: "openai-compatible",
        baseUrl: llm.baseUrl,
        apiKey: "",
        maxRetries: 0,
        timeoutMs: 10_000,
        headers: {},
      },
    ],
    models: { vision: ["main/scripted-model"] },
    usage: (record) => stores.usage.record(record),
    logger,
  });
  const monitor = new MonitorHub();
  let events = 0;
  monitor.subscribe(() => events++);
  const media = {
    allowPrivateNetworks: true,
    allowLocalFiles: false,
    maxBytes: 10_485_760,
    timeoutMs: 10_000,
    maxVisionSide: 1568,
  };
  const vision = { maxPerTurn: 4, maxPerDay: 1_000_000, timeoutMs: 20_000, onDemand: true };
  const prompts = new PromptLibrary({ language: "zh", templates: {} }, process.cwd(), logger);

  let awaitedMs = 0;
  const timed = async <T>(work: Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work;
    } finally {
      awaitedMs += performance.now() - started;
    }
  };
  const realFetcher = createPictureFetcher({
    settings: () => media,
    decoder: new PictureDecoder({ settings: () => media }),
    logger,
  });
  const fetcher: PictureFetcher = {
    fetch: (ref, signal) => timed(realFetcher.fetch(ref, signal)),
    decode: (bytes) => timed(realFetcher.decode(bytes)),
  };
  const describer = new PictureDescriber({
    llm: { generate: (request: LlmRequest) => timed(client.generate(request)) },
    store: stores.pictures,
    // Stickers off, as by default: the bench measures describing.
    stickers: new StickerCollection({
      store: stores.stickers,
      settings: () => ({
        enabled: false,
        groups: [],
        capacity: 200,
        maxTotalBytes: 32 * 1024 * 1024,
        shareAcrossChats: false,
      }),
      monitor,
      logger,
    }),
    enabled: () => true,
    settings: () => vision,
    prompts: () => prompts.templates(),
    monitor,
    logger,
  });
  const turn = (index: number) =>
    new TurnPictures(describer, {
      replyId: `bench-${index}`,
      sessionId: "onebot:10000:group:20000",
      fetcher,
      signal: new AbortController().signal,
    });
  const pictureOf = (index: number): Segment[] => {
    const bytes = encodeRgbaPng(1, 1, Uint8Array.from([index & 255, (index >> 8) & 255, 7, 255]));
    const url = server.serve(`/p${index}.png`, { body: bytes });
    return [{ type: "image", data: { file: `p${index}.png`, url } }];
  };

  const described: number[] = [];
  const wall: number[] = [];
  const hits: number[] = [];
  for (let index = 0; index < WARMUP + PICTURES; index++) {
    const segments = pictureOf(index);
    awaitedMs = 0;
    const fresh = turn(index);
    let started = performance.now();
    await fresh.describe([segments]);
    const total = performance.now() - started;
    if (fresh.texts.size !== 1) throw new Error(`picture ${index} was not described`);
    const again = turn(index);
    started = performance.now();
    await again.describe([segments]);
    const hitMs = performance.now() - started;
    if (again.texts.size !== 1) throw new Error(`picture ${index} was not found again`);
    if (index < WARMUP) continue;
    wall.push(total);
    described.push(total - awaitedMs);
    hits.push(hitMs);
  }
  const visionCalls = llm.requests.filter((request) => request.images.length > 0).length;
  prompts.close();
  await llm.close();
  await server.close();
  await stores.close();
  rmSync(dataDir, { recursive: true, force: true });
  return {
    pictures: PICTURES,
    visionCalls,
    fetches: server.requests.length,
    monitorEvents: events,
    describedWallMsP50: round(percentile(wall, 50), 3),
    describedFrameworkMsP50: round(percentile(described, 50), 3),
    describedFrameworkMsP99: round(percentile(described, 99), 3),
    targetDescribedFrameworkMs: 2,
    cacheHitMsP50: round(percentile(hits, 50), 4),
    cacheHitMsP99: round(percentile(hits, 99), 4),
    targetCacheHitMs: 0.1,
  };
}
