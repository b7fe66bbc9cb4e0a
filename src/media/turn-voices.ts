import { createHash } from "node:crypto";
import type { PictureText } from "../message/picture-text.ts";
import { pictureKeyOf } from "../message/picture-text.ts";
import type { Segment } from "../message/segment.ts";
import { isSegment } from "../message/segment-guards.ts";
import { voiceSourceOf } from "./voice-fetch.ts";
import type { KeyedVoice, VoiceTranscriber, VoiceTurn } from "./voice-transcriber.ts";

/**
 * The voice messages one turn transcribes, their transcripts written into the turn's picture
 * texts (rendered `[语音：…]`). Each is heard once per turn: known ones (by file id) cost
 * nothing; of the rest, at most `media.speech.maxPerTurn` are fetched and transcribed, all at
 * once, and the others stay `[语音]`.
 */
export class TurnVoices {
  private readonly seen = new Set<string>();
  private remaining: number;

  constructor(
    private readonly transcriber: VoiceTranscriber,
    private readonly turn: VoiceTurn,
    private readonly texts: Map<string, PictureText>,
  ) {
    this.remaining = transcriber.settings().maxPerTurn;
  }

  /** Transcribes the voice messages of these messages, most important first; never rejects. */
  async transcribe(segmentLists: Segment[][]): Promise<void> {
    if (!this.transcriber.enabled) return;
    const fresh = voicesOf(segmentLists).filter((voice) => !this.seen.has(voice.key));
    for (const voice of fresh) this.seen.add(voice.key);
    const known = await Promise.all(fresh.map((voice) => this.transcriber.known(voice)));
    const unknown: KeyedVoice[] = [];
    for (const [index, voice] of fresh.entries()) {
      const text = known[index];
      if (text) this.texts.set(voice.key, { kind: "voice", description: text });
      else if (!this.transcriber.pausedAfterFailure(voice.key)) unknown.push(voice);
    }
    if (unknown.length > 0 && this.transcriber.dailyCapReached()) {
      this.transcriber.emitSkipped(this.turn, unknown.length, "daily cap");
      return;
    }
    const chosen = unknown.slice(0, this.remaining);
    this.remaining -= chosen.length;
    if (chosen.length < unknown.length) {
      this.transcriber.emitSkipped(this.turn, unknown.length - chosen.length, "turn cap");
    }
    await Promise.all(
      chosen.map(async (voice) => {
        const text = await this.transcriber.transcribe(voice, this.turn);
        if (text) this.texts.set(voice.key, { kind: "voice", description: text });
      }),
    );
  }
}

const INLINE_PREFIX = "base64://";

/** The voice messages (`record` segments) of these segments that have audio to fetch, each key once, in order. */
export function voicesOf(segmentLists: Segment[][]): KeyedVoice[] {
  const voices = new Map<string, KeyedVoice>();
  for (const segment of segmentLists.flat()) {
    if (!isSegment(segment, "record")) continue;
    const key = pictureKeyOf(segment.data);
    const source = voiceSourceOf(segment);
    if (key === undefined || source === undefined || voices.has(key)) continue;
    const { file } = segment.data;
    // Inline audio (the console playground) is found again by a hash of its base64, not its bytes.
    const fileId = file.startsWith(INLINE_PREFIX)
      ? `inline:${createHash("sha256").update(file.slice(INLINE_PREFIX.length)).digest("hex")}`
      : "fileId" in source
        ? source.fileId
        : undefined;
    voices.set(key, { key, source, ...(fileId === undefined ? {} : { fileId }) });
  }
  return [...voices.values()];
}
