import type { ChatAdapter } from "../adapters/types.ts";
import type { TurnRunnerDeps } from "../agent/turn-runner.ts";
import type { ConsolePictures } from "../api/deps.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Transcriber } from "../llm/transcriber.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import { PictureDecoder } from "../media/picture-decoder.ts";
import { PictureDescriber } from "../media/picture-describer.ts";
import { createPictureFetcher, oneBotGetImage } from "../media/picture-fetcher.ts";
import { StickerCollection } from "../media/sticker-collection.ts";
import { TurnPictures } from "../media/turn-pictures.ts";
import { TurnVoices } from "../media/turn-voices.ts";
import type { PictureFetcher } from "../media/types.ts";
import { createVoiceFetcher, oneBotGetRecord, type VoiceFetcher } from "../media/voice-fetch.ts";
import { VoiceTranscriber } from "../media/voice-transcriber.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { PictureDescriptionStore, Stores } from "../store/types.ts";

export interface TurnPicturesDeps {
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => { generate(request: LlmRequest): Promise<LlmResult>; transcriber: Transcriber };
  stores: Pick<Stores, "pictures" | "voiceTranscripts" | "stickers">;
  config: () => TsumugiConfig;
  prompts: { templates(): PromptTemplates };
  /** The account's picture fetcher ({@link accountPictureFetchers}). */
  fetcherFor: (message: ChatMessage) => PictureFetcher;
  /** The account's voice fetcher ({@link accountVoiceFetchers}). */
  voiceFetcherFor: (message: ChatMessage) => VoiceFetcher;
  monitor: Monitor;
  logger: Logger;
}

/**
 * Each turn's picture descriptions and voice transcripts: one describer for the process (it counts the
 * day's attempts), the fetcher of the turn's platform account; and the kept stickers, which
 * the describer fills and the planner's `send_sticker` sends.
 */
export function turnPicturesOf(
  deps: TurnPicturesDeps,
): Pick<TurnRunnerDeps, "picturesForTurn"> & { stickers: StickerCollection } {
  const stickers = new StickerCollection({
    store: deps.stores.stickers,
    settings: () => deps.config().stickers,
    monitor: deps.monitor,
    logger: deps.logger,
  });
  const describer = new PictureDescriber({
    llm: { generate: (request) => deps.llm().generate(request) },
    store: deps.stores.pictures,
    stickers,
    enabled: () => (deps.config().llm.models.vision ?? []).length > 0,
    settings: () => deps.config().media.vision,
    prompts: () => deps.prompts.templates(),
    monitor: deps.monitor,
    logger: deps.logger,
  });
  const transcriber = new VoiceTranscriber({
    transcriber: () => deps.llm().transcriber,
    store: deps.stores.voiceTranscripts,
    settings: () => deps.config().media.speech,
    monitor: deps.monitor,
    logger: deps.logger,
  });
  const picturesForTurn: TurnRunnerDeps["picturesForTurn"] = ({ replyId, origin, signal }) => {
    const turn = { replyId, sessionId: origin.sessionId, signal };
    const pictures = new TurnPictures(
      describer,
      { ...turn, fetcher: deps.fetcherFor(origin) },
      { look: plannerOrReplyerSees(deps.config().llm) },
    );
    // Transcripts join the pictures' texts: both are rendered wherever the message appears.
    const voices = new TurnVoices(
      transcriber,
      { ...turn, fetcher: deps.voiceFetcherFor(origin) },
      pictures.texts,
    );
    return {
      texts: pictures.texts,
      look: (segmentLists) => pictures.look(segmentLists),
      describe: async (segmentLists, pointedAt) => {
        await Promise.all([pictures.describe(segmentLists, pointedAt), voices.transcribe(segmentLists)]);
      },
    };
  };
  return { picturesForTurn, stickers };
}

/** Whether a planner or replyer model accepts images: only then are pictures fetched to be looked at. */
function plannerOrReplyerSees(llm: TsumugiConfig["llm"]): boolean {
  const seeing = new Set(llm.acceptsImages);
  return [...llm.models.planner, ...llm.models.replyer].some((ref) => seeing.has(ref));
}

/** What the console shows of pictures and voice: their bytes fetched by the bot (never by the browser), their descriptions. */
export function consolePicturesOf(deps: {
  fetcherFor: (message: ChatMessage) => PictureFetcher;
  voiceFetcherFor: (message: ChatMessage) => VoiceFetcher;
  store: PictureDescriptionStore;
}): ConsolePictures {
  return { fetcherFor: deps.fetcherFor, voiceFetcherFor: deps.voiceFetcherFor, descriptions: deps.store };
}

interface FetcherDeps {
  config: () => TsumugiConfig;
  adapters: ReadonlyMap<string, ChatAdapter>;
  logger: Logger;
}

/**
 * One fetcher per platform account, made on first use: its `get_image` resolves pictures that
 * came with a file id only. All of them share one decoder, so a picture decoded (or refused)
 * for a turn is not decoded again for the console or a plugin. Plugins fetch the pictures of
 * the message they were called for with it.
 */
export function accountPictureFetchers(deps: FetcherDeps): (message: ChatMessage) => PictureFetcher {
  const fetchers = new Map<string, PictureFetcher>();
  const decoder = new PictureDecoder({ settings: () => deps.config().media });
  return (message) => {
    const account = `${message.adapterId}\n${message.selfId}`;
    let fetcher = fetchers.get(account);
    if (!fetcher) {
      const adapter = deps.adapters.get(message.adapterId);
      fetcher = createPictureFetcher({
        settings: () => deps.config().media,
        ...(adapter ? { getImage: oneBotGetImage(adapter, message.selfId) } : {}),
        decoder,
        logger: deps.logger,
      });
      fetchers.set(account, fetcher);
    }
    return fetcher;
  };
}

/**
 * One voice fetcher per platform account, made on first use: its `get_record` converts voice
 * that came with a file id only, or as AMR (NapCat answers WAV with its ffmpeg).
 */
export function accountVoiceFetchers(deps: FetcherDeps): (message: ChatMessage) => VoiceFetcher {
  const fetchers = new Map<string, VoiceFetcher>();
  return (message) => {
    const account = `${message.adapterId}\n${message.selfId}`;
    let fetcher = fetchers.get(account);
    if (!fetcher) {
      const adapter = deps.adapters.get(message.adapterId);
      fetcher = createVoiceFetcher({
        settings: () => deps.config().media,
        ...(adapter ? { getRecord: oneBotGetRecord(adapter, message.selfId) } : {}),
        logger: deps.logger,
      });
      fetchers.set(account, fetcher);
    }
    return fetcher;
  };
}
