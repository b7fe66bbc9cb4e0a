import type { ChatAdapter } from "../adapters/types.ts";
import type { TurnRunnerDeps } from "../agent/turn-runner.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import { PictureDescriber } from "../media/picture-describer.ts";
import { createPictureFetcher, oneBotGetImage } from "../media/picture-fetcher.ts";
import { TurnPictures } from "../media/turn-pictures.ts";
import type { PictureFetcher } from "../media/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { PictureDescriptionStore } from "../store/types.ts";

export interface TurnPicturesDeps {
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => { generate(request: LlmRequest): Promise<LlmResult> };
  store: PictureDescriptionStore;
  config: () => TsumugiConfig;
  prompts: { templates(): PromptTemplates };
  adapters: ReadonlyMap<string, ChatAdapter>;
  monitor: Monitor;
  logger: Logger;
}

/**
 * Each turn's picture descriptions (issue 17): one describer for the process (it counts the
 * day's vision calls), one fetcher per platform account (its `get_image` for pictures that
 * came with a file id only).
 */
export function turnPicturesOf(deps: TurnPicturesDeps): TurnRunnerDeps["picturesForTurn"] {
  const describer = new PictureDescriber({
    llm: { generate: (request) => deps.llm().generate(request) },
    store: deps.store,
    enabled: () => (deps.config().llm.models.vision ?? []).length > 0,
    settings: () => deps.config().media.vision,
    prompts: () => deps.prompts.templates(),
    monitor: deps.monitor,
    logger: deps.logger,
  });
  const fetchers = new Map<string, PictureFetcher>();
  const fetcherFor = (message: ChatMessage): PictureFetcher => {
    const account = `${message.adapterId}\n${message.selfId}`;
    let fetcher = fetchers.get(account);
    if (!fetcher) {
      const adapter = deps.adapters.get(message.adapterId);
      fetcher = createPictureFetcher({
        settings: () => deps.config().media,
        ...(adapter ? { getImage: oneBotGetImage(adapter, message.selfId) } : {}),
        logger: deps.logger,
      });
      fetchers.set(account, fetcher);
    }
    return fetcher;
  };
  return ({ replyId, origin, signal }) =>
    new TurnPictures(describer, {
      replyId,
      sessionId: origin.sessionId,
      fetcher: fetcherFor(origin),
      signal,
    });
}
