import type { Logger } from "../log/logger.ts";
import { audioFormat } from "../util/audio-format.ts";
import { wavDurationMs, wavWithSizes } from "../util/wav.ts";
import type { LlmProviderConfig } from "./config.ts";
import { EDGE_BITS_PER_SECOND, edgeSpeech } from "./edge-speech.ts";
import { describeRef } from "./model-ref.ts";
import { redact } from "./redact.ts";
import type { LlmUsageRecord } from "./types.ts";

/** The text-to-speech task of `llm.models`. */
export const TTS_TASK = "tts";

const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** OpenAI's documented default voice; an openai-compatible server with other names needs `bot.voice`. */
const OPENAI_DEFAULT_VOICE = "alloy";
/** Longest answer read from a speech server: a few minutes of 24 kHz WAV. */
const MAX_AUDIO_BYTES = 20 * 1024 * 1024;

export interface SpeakRequest {
  text: string;
  /** The voice per provider id in force in the chat (`bot.voice` with its group's `voice`). */
  voices: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  replyId?: string;
  sessionId?: string;
  /** Whose turn it speaks for (counted in that user's budget). */
  userKey?: string;
}

export interface Speech {
  /** WAV, or MP3 from a provider that gives only that (Edge). */
  audio: Buffer;
  format: "wav" | "mp3";
  /** The `"provider/model"` that spoke. */
  ref: string;
  provider: string;
  /** The voice it spoke in. */
  voice: string;
  /** How long it plays; undefined when the audio does not tell. */
  durationMs?: number;
  latencyMs: number;
}

export interface SpeakerOptions {
  providers: LlmProviderConfig[];
  models: Record<string, string[]>;
  /** The task lists in force in one chat (its per-group models). */
  modelsInChat?: (sessionId: string) => Record<string, string[]>;
  usage: (record: LlmUsageRecord) => void;
  logger: Logger;
  fetch: typeof globalThis.fetch;
}

/**
 * Text to speech for `llm.models.tts`: each model once, in order, until one speaks. OpenAI and
 * openai-compatible providers answer `POST …/audio/speech` (OpenAI, SiliconFlow CosyVoice, local
 * servers), a `gpt-sovits` provider answers `POST /tts` (GPT-SoVITS api_v2.py), an `edge-tts`
 * provider is Edge's read-aloud service through node-edge-tts. Every attempt is a usage record
 * of the task `tts` whose prompt tokens are the characters spoken (what the daily token budgets
 * count). No retries: the caller sends the text as text instead. Undefined when every model failed.
 */
export class Speaker {
  constructor(private readonly options: SpeakerOptions) {}

  /** Whether a tts model is set (in the chat `sessionId` names, when given). */
  configured(sessionId?: string): boolean {
    return this.refs(sessionId).length > 0;
  }

  async speak(request: SpeakRequest): Promise<Speech | undefined> {
    for (const ref of this.refs(request.sessionId)) {
      const started = performance.now();
      const { provider, model } = describeRef(ref);
      const config = this.options.providers.find((candidate) => candidate.id === provider);
      const record = {
        time: Date.now(),
        task: TTS_TASK,
        provider,
        model,
        promptTokens: [...request.text].length,
        completionTokens: 0,
        replyId: request.replyId,
        sessionId: request.sessionId,
        userKey: request.userKey,
      };
      try {
        if (!config) throw new Error(`unknown LLM provider "${provider}" in "${ref}"`);
        const spoken = await this.synthesize(config, model, request);
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({ ...record, latencyMs, success: true });
        return { ...spoken, ref, provider, latencyMs };
      } catch (error) {
        const raw = error instanceof Error ? error.message : String(error);
        const message = config ? redact(raw, config) : raw;
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({ ...record, promptTokens: 0, latencyMs, success: false, error: message });
        this.options.logger.warn({ task: TTS_TASK, provider, model }, `speech failed: ${message}`);
        if (request.signal?.aborted) return undefined;
      }
    }
    return undefined;
  }

  private refs(sessionId: string | undefined): string[] {
    const { models, modelsInChat } = this.options;
    const inForce = sessionId !== undefined && modelsInChat ? modelsInChat(sessionId) : models;
    return inForce[TTS_TASK] ?? [];
  }

  private async synthesize(
    config: LlmProviderConfig,
    model: string,
    request: SpeakRequest,
  ): Promise<Pick<Speech, "audio" | "format" | "voice" | "durationMs">> {
    const signal = AbortSignal.any([
      ...(request.signal ? [request.signal] : []),
      AbortSignal.timeout(config.timeoutMs),
    ]);
    const chosen = request.voices[config.id];
    switch (config.type) {
      case "openai":
      case "openai-compatible": {
        // https://platform.openai.com/docs/api-reference/audio/createSpeech
        const voice = chosen ?? OPENAI_DEFAULT_VOICE;
        const base = (config.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, "");
        const audio = await this.post(`${base}/audio/speech`, config.headers, config.apiKey, signal, {
          model,
          input: request.text,
          voice,
          response_format: "wav",
        });
        return wavSpeech(audio, voice);
      }
      case "gpt-sovits": {
        // GPT-SoVITS api_v2.py: POST /tts, the WAV itself on success, JSON { message } with 400.
        const names = Object.keys(config.voices);
        const voice = chosen ?? names[0];
        const reference = voice === undefined ? undefined : config.voices[voice];
        if (voice === undefined || reference === undefined) {
          throw new Error(
            names.length === 0
              ? `provider ${config.id} (gpt-sovits) has no voices: set llm.providers[].voices`
              : `provider ${config.id} (gpt-sovits) has no voice "${voice}" (it has ${names.join(", ")})`,
          );
        }
        const audio = await this.post(
          `${config.baseUrl.replace(/\/+$/, "")}/tts`,
          config.headers,
          "",
          signal,
          {
            text: request.text,
            text_lang: config.textLang,
            ref_audio_path: reference.refAudioPath,
            prompt_text: reference.promptText,
            prompt_lang: reference.promptLang,
            media_type: "wav",
            streaming_mode: false,
          },
        );
        return wavSpeech(audio, voice);
      }
      case "edge-tts": {
        const spoken = await edgeSpeech(request.text, { voice: chosen, proxy: config.proxy, signal });
        // Edge's format is constant-bitrate MP3: its length tells how long it plays.
        const durationMs = Math.round((spoken.audio.length * 8 * 1000) / EDGE_BITS_PER_SECOND);
        return { audio: spoken.audio, format: "mp3", voice: spoken.voice, durationMs };
      }
      default:
        throw new Error(`provider ${config.id} (${config.type}) does not speak (no text-to-speech API)`);
    }
  }

  private async post(
    url: string,
    headers: Record<string, string>,
    apiKey: string,
    signal: AbortSignal,
    body: Record<string, unknown>,
  ): Promise<Buffer> {
    const response = await this.options.fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...headers,
        ...(apiKey === "" ? {} : { Authorization: `Bearer ${apiKey}` }),
      },
      body: JSON.stringify(body),
      signal,
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${bytes.toString("utf8", 0, 300)}`);
    if (bytes.length > MAX_AUDIO_BYTES) throw new Error(`the audio is over ${MAX_AUDIO_BYTES} bytes`);
    return bytes;
  }
}

/** The answer as a WAV file with true sizes and its duration; what else came back is said in the error. */
function wavSpeech(bytes: Buffer, voice: string): Pick<Speech, "audio" | "format" | "voice" | "durationMs"> {
  const wav = wavWithSizes(bytes);
  if (wav) {
    const durationMs = wavDurationMs(wav);
    return { audio: wav, format: "wav", voice, ...(durationMs === undefined ? {} : { durationMs }) };
  }
  const format = audioFormat(bytes);
  throw new Error(
    format
      ? `the answer is ${format} audio, not the WAV asked for`
      : `the answer is not audio: ${bytes.toString("utf8", 0, 200)}`,
  );
}
