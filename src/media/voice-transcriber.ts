import { createHash } from "node:crypto";
import type { TranscribeRequest, Transcript } from "../llm/transcriber.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PictureDescriptionStore } from "../store/types.ts";
import { AttemptBudget } from "./attempt-budget.ts";
import { DescriptionCache } from "./description-cache.ts";
import type { SpeechSettings } from "./speech-config.ts";
import type { AudioMime } from "./voice-audio.ts";
import type { VoiceFetcher, VoiceSource } from "./voice-fetch.ts";

export interface VoiceTranscriberDeps {
  /** The current client's speech task (`llm.models.speech`); read per call, as a reload replaces it. */
  transcriber: () => {
    configured(): boolean;
    transcribe(request: TranscribeRequest): Promise<Transcript | undefined>;
  };
  /** Transcripts cached as picture descriptions are: by content hash and by file id. */
  store: PictureDescriptionStore;
  settings: () => SpeechSettings;
  monitor: Monitor;
  logger: Logger;
  /** Names the current day for `maxPerDay`; the process's local date unless a test sets it. */
  today?: () => string;
}

/** A voice message of a turn and the key its transcript is rendered under (its file id, else its url). */
export interface KeyedVoice {
  key: string;
  source: VoiceSource;
  /** What its cached transcript is found by without fetching: the file id, or a hash of inline bytes. */
  fileId?: string;
}

/** Who a voice message is transcribed for: its turn, and the fetcher of the turn's account. */
export interface VoiceTurn {
  replyId: string;
  sessionId: string;
  fetcher: VoiceFetcher;
  signal: AbortSignal;
}

/** Longest transcript kept: a voice message is a line of the transcript. */
const MAX_TRANSCRIPT_CHARS = 500;

/**
 * Transcribes voice messages once: a file id heard before, or content (SHA-256 of its playable
 * audio) transcribed before, costs no model call; anything else is fetched, converted (SILK to
 * WAV) and sent to the speech task, and the transcript stored. Counts today's attempts in
 * memory for `media.speech.maxPerDay`. Never throws for what a platform or model did: a
 * failure is a monitor event, and undefined (the message stays `[语音]`).
 */
export class VoiceTranscriber {
  private readonly budget: AttemptBudget<never>;
  private readonly transcripts: DescriptionCache;

  constructor(private readonly deps: VoiceTranscriberDeps) {
    this.budget = new AttemptBudget(() => deps.settings().maxPerDay, deps.today);
    this.transcripts = new DescriptionCache(deps.store, deps.logger, "voice transcript");
  }

  get enabled(): boolean {
    return this.deps.transcriber().configured();
  }

  settings(): SpeechSettings {
    return this.deps.settings();
  }

  /** The stored transcript of a file id heard before, if any (no fetch, no model call). */
  async known(voice: KeyedVoice): Promise<string | undefined> {
    return (await this.transcripts.byFileId(voice.fileId))?.description;
  }

  pausedAfterFailure(key: string): boolean {
    return this.budget.recentFailure(key) !== undefined;
  }

  dailyCapReached(): boolean {
    return this.budget.dailyCapReached();
  }

  /** Fetches, converts and transcribes one voice message, bounded by `media.speech.timeoutMs`. */
  async transcribe(voice: KeyedVoice, turn: VoiceTurn): Promise<string | undefined> {
    const { timeoutMs, maxSeconds } = this.deps.settings();
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([turn.signal, timeout]);
    const started = performance.now();
    let stage: "fetch" | "model" = "fetch";
    try {
      if (!this.budget.takeDailyAttempt()) {
        this.emitSkipped(turn, 1, "daily cap");
        return undefined;
      }
      const fetched = await turn.fetcher(voice.source, signal);
      if (!fetched.ok) return this.failed(voice, turn, "fetch", fetched.reason);
      const { audio } = fetched;
      if (audio.durationMs !== undefined && audio.durationMs > maxSeconds * 1000) {
        const seconds = Math.round(audio.durationMs / 1000);
        return this.failed(voice, turn, "fetch", `${seconds} s long, over media.speech.maxSeconds`);
      }
      const fetchMs = Math.round(performance.now() - started);
      const sha256 = createHash("sha256").update(audio.bytes).digest("hex");
      const cached = await this.transcripts.byContent(sha256, voice.fileId);
      if (cached) {
        this.emit(turn, "speech.transcribed", { cached: true, model: cached.model, fetchMs });
        return cached.description;
      }
      stage = "model";
      const transcript = await this.deps.transcriber().transcribe({
        audio: { bytes: audio.bytes, mime: audio.mime, fileName: `voice.${extensionOf(audio.mime)}` },
        signal,
        replyId: turn.replyId,
        sessionId: turn.sessionId,
      });
      if (transcript === undefined) {
        const reason = timeout.aborted ? `timed out after ${timeoutMs} ms` : "every speech model failed";
        return this.failed(voice, turn, "model", reason);
      }
      const text = transcriptOf(transcript.text);
      if (text === "") return this.failed(voice, turn, "model", "the model heard no words");
      await this.transcripts.save(
        { sha256, kind: "voice", description: text, model: transcript.ref, createdAt: Date.now() },
        voice.fileId,
      );
      this.emit(turn, "speech.transcribed", {
        cached: false,
        model: transcript.ref,
        latencyMs: transcript.latencyMs,
        fetchMs,
        ...(audio.durationMs === undefined ? {} : { durationMs: audio.durationMs }),
      });
      return text;
    } catch (error) {
      const reason = timeout.aborted
        ? `timed out after ${timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      return this.failed(voice, turn, stage, reason);
    }
  }

  /** Says that `count` voice messages stay placeholders because a cap was reached. */
  emitSkipped(turn: VoiceTurn, count: number, reason: "turn cap" | "daily cap"): void {
    this.emit(turn, "speech.skipped", { count, reason });
  }

  /** Records the failure (timeline, and not tried again for a while); the message stays `[语音]`. */
  private failed(voice: KeyedVoice, turn: VoiceTurn, stage: "fetch" | "model", reason: string): undefined {
    this.budget.pause(voice.key);
    this.emit(turn, "speech.failed", { stage, reason });
    // The fetcher and the speech client log their own failures.
    return undefined;
  }

  private emit(
    turn: VoiceTurn,
    type: "speech.transcribed" | "speech.failed" | "speech.skipped",
    data: Record<string, unknown>,
  ): void {
    this.deps.monitor.emit({ type, replyId: turn.replyId, sessionId: turn.sessionId, data });
  }
}

/** The transcript on one line, without brackets that would break `[语音：…]`, cut to a line's length. */
function transcriptOf(text: string): string {
  const line = text
    .replace(/[[\]【】]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return [...line].slice(0, MAX_TRANSCRIPT_CHARS).join("");
}

const EXTENSIONS: Record<AudioMime, string> = {
  "audio/wav": "wav",
  "audio/ogg": "ogg",
  "audio/mpeg": "mp3",
  "audio/flac": "flac",
  "audio/mp4": "m4a",
  "audio/webm": "webm",
};

/** Transcription endpoints tell the format by the file name's extension. */
function extensionOf(mime: AudioMime): string {
  return EXTENSIONS[mime];
}
