import type { PictureDescriptions, PictureText } from "../message/picture-text.ts";
import type { Segment } from "../message/segment.ts";
import type { PictureDescriber, PictureTurn } from "./picture-describer.ts";
import { type KeyedPicture, picturesOf } from "./picture-refs.ts";

/**
 * The pictures one turn shows its models. Each picture is looked at once per turn: known
 * ones (by file id) cost nothing; of the rest, at most `media.vision.maxPerTurn` are fetched
 * and described, all at once, and the others stay placeholders.
 */
export class TurnPictures implements PictureDescriptions {
  readonly texts = new Map<string, PictureText>();
  private readonly seen = new Set<string>();
  private remaining: number;

  constructor(
    private readonly describer: PictureDescriber,
    private readonly turn: PictureTurn,
  ) {
    this.remaining = describer.settings().maxPerTurn;
  }

  async describe(segmentLists: Segment[][]): Promise<void> {
    if (!this.describer.enabled) return;
    const fresh = picturesOf(segmentLists).filter((picture) => !this.seen.has(picture.key));
    for (const picture of fresh) this.seen.add(picture.key);
    const known = await Promise.all(fresh.map((picture) => this.describer.known(picture.ref)));
    const unknown: KeyedPicture[] = [];
    for (const [index, picture] of fresh.entries()) {
      const text = known[index];
      if (text) this.texts.set(picture.key, text);
      else if (!this.describer.failedRecently(picture.key)) unknown.push(picture);
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
