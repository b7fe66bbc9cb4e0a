import type { LlmImage } from "../llm/types.ts";
import type { PictureDescriptions, PictureText } from "../message/picture-text.ts";
import type { Segment } from "../message/segment.ts";
import type { PictureDescriber, PictureTurn } from "./picture-describer.ts";
import { fetchKeyedPicture, type KeyedPicture, picturesOf } from "./picture-refs.ts";
import type { PictureFetch, PictureFetcher } from "./types.ts";

/**
 * The pictures one turn shows its models. Each picture is looked at once per turn: known
 * ones (by file id) cost nothing; of the rest, at most `media.vision.maxPerTurn` are fetched
 * and described, all at once, and the others stay placeholders.
 */
export class TurnPictures implements PictureDescriptions {
  readonly texts = new Map<string, PictureText>();
  private readonly seen = new Set<string>();
  private remaining: number;
  private readonly turn: PictureTurn;
  /** Pictures shown to a model that sees (looking directly), by key; at most `maxPerTurn`. */
  private readonly looked = new Map<string, Promise<LlmImage | undefined>>();

  /** `look`: a planner or replyer model accepts images, so the new messages' pictures are fetched for it. */
  constructor(
    private readonly describer: PictureDescriber,
    turn: PictureTurn,
    private readonly options: { look: boolean } = { look: false },
  ) {
    this.remaining = describer.settings().maxPerTurn;
    // A picture both described and looked at is fetched once a turn.
    this.turn = { ...turn, fetcher: fetchingOnce(turn.fetcher) };
  }

  /**
   * The pictures of these (new) messages for a model that accepts images: the newest message's
   * first, at most `media.vision.maxPerTurn` a turn, each fetched once with every limit, given in chat
   * order. One that cannot be fetched is left out: its text (placeholder or description) stays.
   * Nothing without a planner or replyer model in `llm.acceptsImages`.
   */
  async look(segmentLists: Segment[][]): Promise<LlmImage[]> {
    if (!this.options.look) return [];
    const { maxPerTurn } = this.describer.settings();
    const newestFirst = picturesOf([...segmentLists].reverse());
    for (const picture of newestFirst) {
      if (this.looked.has(picture.key) || this.looked.size >= maxPerTurn) continue;
      this.looked.set(picture.key, this.fetchImage(picture));
    }
    const shown = picturesOf(segmentLists).filter((picture) => this.looked.has(picture.key));
    const images = await Promise.all(shown.map((picture) => this.looked.get(picture.key)));
    return images.filter((image) => image !== undefined);
  }

  private async fetchImage(picture: KeyedPicture): Promise<LlmImage | undefined> {
    const fetched = await fetchKeyedPicture(picture, this.turn.fetcher, this.turn.signal);
    return fetched.ok ? { mime: fetched.picture.mime, bytes: fetched.picture.bytes } : undefined;
  }

  async describe(segmentLists: Segment[][], pointedAt?: Segment[][]): Promise<void> {
    if (!this.describer.enabled) return;
    const describable =
      pointedAt && this.describer.settings().onDemand
        ? new Set(picturesOf(pointedAt).map((picture) => picture.key))
        : undefined;
    const fresh = picturesOf(segmentLists).filter((picture) => !this.seen.has(picture.key));
    const known = await Promise.all(fresh.map((picture) => this.describer.known(picture.ref)));
    const unknown: KeyedPicture[] = [];
    for (const [index, picture] of fresh.entries()) {
      const failure = this.describer.recentFailure(picture.key);
      const text = known[index] ?? failure?.shown;
      // A picture nothing points at stays a placeholder, unseen: a quote may point at it later.
      if (!text && !failure && describable && !describable.has(picture.key)) continue;
      this.seen.add(picture.key);
      if (text) this.texts.set(picture.key, text);
      else if (!failure) unknown.push(picture);
    }
    if (unknown.length > 0 && this.describer.dailyCapReached()) {
      this.describer.emitSkipped(this.turn, unknown.length, "daily cap");
      return;
    }
    const chosen = unknown.slice(0, this.remaining);
    this.remaining -= chosen.length;
    if (chosen.length < unknown.length) {
      this.describer.emitSkipped(this.turn, unknown.length - chosen.length, "turn cap");
    }
    await Promise.all(
      chosen.map(async (picture) => {
        const text = await this.describer.describe(picture, this.turn);
        if (text) this.texts.set(picture.key, text);
      }),
    );
  }
}

/**
 * The turn's fetcher, asked once per picture: a second ask (the same picture described and
 * then looked at) gets the first one's result. Lives as long as the turn.
 */
function fetchingOnce(fetcher: PictureFetcher): PictureFetcher {
  const fetches = new Map<string, Promise<PictureFetch>>();
  return {
    decode: (bytes) => fetcher.decode(bytes),
    fetch(ref, signal) {
      const key = ref.fileId ?? ref.url;
      if (key === undefined) return fetcher.fetch(ref, signal);
      let fetch = fetches.get(key);
      if (!fetch) {
        fetch = fetcher.fetch(ref, signal);
        fetches.set(key, fetch);
      }
      return fetch;
    },
  };
}
