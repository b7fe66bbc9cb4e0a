import type { Batch } from "../chat/batch.ts";
import { type TurnLimits, turnUser } from "../chat/turn-limits.ts";
import type { SpeechCall } from "../components/types.ts";
import type { SpeakRequest, Speech } from "../llm/speaker.ts";
import { MediaCaps } from "../media/media-caps.ts";
import { recordAudio } from "../media/outgoing-media.ts";
import type { TtsSettings } from "../media/tts-config.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PluginSpeech, SpokenAudio } from "../sdk/types.ts";

export interface VoiceSpeakingDeps {
  /** The current client's tts task (`llm.models.tts`); read per call, as a reload replaces it. */
  speaker: () => {
    configured(sessionId?: string): boolean;
    speak(request: SpeakRequest): Promise<Speech | undefined>;
  };
  /** The voice per speech provider in force in a chat: `bot.voice` with its group's `voice`. */
  voices: (sessionId: string) => Readonly<Record<string, string>>;
  settings: () => TtsSettings;
  /** The daily token budgets: a turn that crossed one speaks no more. */
  budgets: Pick<TurnLimits, "crossed">;
  monitor: Monitor;
}

/** One voice message to speak, for the turn `replyId` started by `userKey`. */
export interface VoiceRequest {
  text: string;
  batch: Batch;
  replyId: string;
  userKey: string | undefined;
  signal: AbortSignal;
}

/** The audio as it is sent (SILK with `media.tts.silk`), or the stage that stopped it and why. */
export type Spoken =
  | { ok: true; speech: Speech; audio: Buffer; format: SpokenAudio["format"] }
  | { ok: false; stage: "length" | "budget" | "model" | "encode"; reason: string };

/**
 * Speaking with the tts task under its rules, for the planner's `send_voice` and for plugins
 * alike: one set of `media.tts` caps, the length cap, the daily token budgets, usage counted
 * for the turn's member, and `tts.spoken` / `tts.failed` on the timeline.
 */
export class VoiceSpeaking {
  private readonly caps: MediaCaps;

  constructor(private readonly deps: VoiceSpeakingDeps) {
    this.caps = new MediaCaps("media.tts", deps.settings);
  }

  configured(sessionId: string): boolean {
    return this.deps.speaker().configured(sessionId);
  }

  /** Takes one voice from the caps; the refusal (also on the timeline), or undefined when taken. */
  claim(batch: Batch, replyId: string, userKey: string | undefined): string | undefined {
    const capped = this.caps.take({ replyId, ...(userKey === undefined ? {} : { userKey }) });
    if (capped !== undefined) this.emit(batch, replyId, "tts.failed", { stage: "cap", reason: capped });
    return capped;
  }

  /** Speaks a claimed voice; every outcome is on the timeline. */
  async speak(request: VoiceRequest): Promise<Spoken> {
    const { text, batch, replyId, userKey } = request;
    const settings = this.deps.settings();
    const chars = [...text].length;
    const failed = (stage: Exclude<Spoken, { ok: true }>["stage"], reason: string): Spoken => {
      this.emit(batch, replyId, "tts.failed", { stage, reason });
      return { ok: false, stage, reason };
    };
    if (chars > settings.maxChars) {
      return failed("length", `${chars} characters, over media.tts.maxChars`);
    }
    const crossed = await this.deps.budgets.crossed(batch, replyId);
    if (crossed !== undefined) return { ok: false, stage: "budget", reason: crossed };
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    const speech = await this.deps.speaker().speak({
      text,
      voices: this.deps.voices(batch.sessionId),
      signal: AbortSignal.any([request.signal, timeout]),
      replyId,
      sessionId: batch.sessionId,
      ...(userKey === undefined ? {} : { userKey }),
    });
    request.signal.throwIfAborted();
    if (!speech) {
      return failed(
        "model",
        timeout.aborted ? `timed out after ${settings.timeoutMs} ms` : "every tts model failed (see the log)",
      );
    }
    let audio: Buffer;
    try {
      audio = await recordAudio(speech, settings.silk);
    } catch (error) {
      return failed("encode", (error as Error).message);
    }
    const format = settings.silk ? "silk" : speech.format;
    this.emit(batch, replyId, "tts.spoken", {
      model: speech.ref,
      provider: speech.provider,
      voice: speech.voice,
      latencyMs: speech.latencyMs,
      seconds: speech.durationMs === undefined ? null : Math.round(speech.durationMs / 100) / 10,
      chars,
      format,
      bytes: speech.audio.length,
    });
    return { ok: true, speech, audio, format };
  }

  /**
   * Speech for one plugin call about `call.message`: each `speak` is one voice of the call's
   * turn (or, outside a turn, of the message), refused with an Error saying why.
   */
  forPlugin(call: SpeechCall): PluginSpeech {
    const { message } = call;
    const batch: Batch = {
      kind: "realtime",
      sessionId: message.sessionId,
      messages: [message],
      triggerIds: [message.messageId],
    };
    const replyId = call.replyId ?? `message:${message.sessionId}:${message.messageId}`;
    const userKey = turnUser(batch);
    const configured = () => this.configured(message.sessionId);
    return {
      // Read when asked: most calls never speak, and a reload may set or clear the models.
      get available() {
        return configured();
      },
      speak: async (text) => {
        if (typeof text !== "string" || text.trim() === "") {
          throw new Error("speech.speak needs the text to say, a non-empty string");
        }
        if (!configured()) {
          throw new Error("speech.speak: no text-to-speech model is set (llm.models.tts)");
        }
        const capped = this.claim(batch, replyId, userKey);
        if (capped !== undefined) throw new Error(`speech.speak refused: ${capped}`);
        const spoken = await this.speak({ text: text.trim(), batch, replyId, userKey, signal: call.signal });
        if (!spoken.ok) throw new Error(`speech.speak failed (${spoken.stage}): ${spoken.reason}`);
        const { speech } = spoken;
        return {
          audio: spoken.audio,
          format: spoken.format,
          model: speech.ref,
          voice: speech.voice,
          ...(speech.durationMs === undefined ? {} : { seconds: speech.durationMs / 1000 }),
        };
      },
    };
  }

  private emit(
    batch: Batch,
    replyId: string,
    type: "tts.spoken" | "tts.failed",
    data: Record<string, unknown>,
  ) {
    this.deps.monitor.emit({ type, replyId, sessionId: batch.sessionId, data });
  }
}
