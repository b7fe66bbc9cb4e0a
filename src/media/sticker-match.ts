import type { KeptSticker } from "../store/types.ts";

/** What the planner asked `send_sticker` for; at least one is given. */
export interface WantedSticker {
  emotion?: string;
  description?: string;
}

/** Splits "开心、得意" / "happy, smug" into its words. */
const WORD_SEPARATORS = /[\s,，、;；/|]+/;
const EMOTION_TAG_POINTS = 3;
const EMOTION_IN_DESCRIPTION_POINTS = 2;

/**
 * How well a sticker fits what was asked, 0 when not at all:
 * - each emotion word asked for scores 3 when one of the sticker's emotion tags contains it
 *   (or it contains the tag: "开心" fits "很开心"), else 2 when the description contains it;
 * - the description asked for scores 1 for each of its character pairs found in the sticker's
 *   description or tags (Chinese has no spaces; pairs match "无语" in "无语凝噎").
 */
export function stickerScore(sticker: KeptSticker, wanted: WantedSticker): number {
  let score = 0;
  for (const word of wordsOf(wanted.emotion)) {
    if (sticker.emotions.some((tag) => tag.includes(word) || word.includes(tag))) score += EMOTION_TAG_POINTS;
    else if (sticker.description.includes(word)) score += EMOTION_IN_DESCRIPTION_POINTS;
  }
  const text = `${sticker.description} ${sticker.emotions.join(" ")}`.toLowerCase();
  for (const pair of pairsOf(wanted.description)) if (text.includes(pair)) score++;
  return score;
}

/** The best-scoring sticker (ties: the most used, then the newest), or undefined when none scores. */
export function bestSticker(stickers: KeptSticker[], wanted: WantedSticker): KeptSticker | undefined {
  let best: { sticker: KeptSticker; score: number } | undefined;
  for (const sticker of stickers) {
    const score = stickerScore(sticker, wanted);
    if (score === 0) continue;
    if (!best || score > best.score || (score === best.score && before(sticker, best.sticker))) {
      best = { sticker, score };
    }
  }
  return best?.sticker;
}

function before(a: KeptSticker, b: KeptSticker): boolean {
  return a.usageCount !== b.usageCount ? a.usageCount > b.usageCount : a.createdAt > b.createdAt;
}

function wordsOf(text: string | undefined): string[] {
  return (text ?? "")
    .toLowerCase()
    .split(WORD_SEPARATORS)
    .filter((word) => word !== "");
}

/** Distinct two-character pieces of each word (a one-character word is its own piece). */
function pairsOf(text: string | undefined): Set<string> {
  const pairs = new Set<string>();
  for (const word of wordsOf(text)) {
    const characters = [...word];
    if (characters.length === 1) pairs.add(word);
    for (let index = 0; index + 1 < characters.length; index++) {
      pairs.add(characters[index]! + characters[index + 1]!);
    }
  }
  return pairs;
}
