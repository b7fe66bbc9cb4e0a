import { Type } from "@sinclair/typebox";
import type { Logger } from "../log/logger.ts";
import { ajvOnFirstUse, checkOnFirstUse } from "../schema/compile-on-first-use.ts";
import type { LlmProviderConfig } from "./config.ts";
import { describeRef } from "./model-ref.ts";
import { redact } from "./redact.ts";
import type { LlmUsageRecord } from "./types.ts";

/** The speech-to-text task of `llm.models`. */
export const SPEECH_TASK = "speech";

const OPENAI_BASE_URL = "https://api.openai.com/v1";

export interface TranscribeRequest {
  /** A WAV (or another format the provider reads: mp3, ogg, flac, m4a, webm). */
  audio: { bytes: Buffer; mime: string; fileName: string };
  signal?: AbortSignal;
  replyId?: string;
  sessionId?: string;
}

export interface Transcript {
  text: string;
  /** The `"provider/model"` that answered. */
  ref: string;
  latencyMs: number;
}

export interface TranscriberOptions {
  providers: LlmProviderConfig[];
  models: Record<string, string[]>;
  usage: (record: LlmUsageRecord) => void;
  logger: Logger;
  fetch: typeof globalThis.fetch;
}

/** OpenAI's `/audio/transcriptions` answer, as Whisper, SenseVoice gateways and whisper.cpp give it. */
const isTranscriptionAnswer = checkOnFirstUse<{ text: string }>(
  ajvOnFirstUse({ strict: false }),
  Type.Object({ text: Type.String() }),
);

/**
 * Speech to text for `llm.models.speech`: each model once, in order, on the providers'
 * OpenAI-compatible `POST …/audio/transcriptions` (multipart `file` + `model`, answer
 * `{ text }`), every attempt reported through `usage`. No retries: a voice message that
 * cannot be transcribed keeps its placeholder and is tried again later. Undefined when every
 * model failed (each failure logged).
 */
export class Transcriber {
  constructor(private readonly options: TranscriberOptions) {}

  configured(): boolean {
    return (this.options.models[SPEECH_TASK] ?? []).length > 0;
  }

  async transcribe(request: TranscribeRequest): Promise<Transcript | undefined> {
    for (const ref of this.options.models[SPEECH_TASK] ?? []) {
      const started = performance.now();
      const { provider, model } = describeRef(ref);
      const config = this.options.providers.find((candidate) => candidate.id === provider);
      const record = {
        time: Date.now(),
        task: SPEECH_TASK,
        provider,
        model,
        promptTokens: 0,
        completionTokens: 0,
        replyId: request.replyId,
        sessionId: request.sessionId,
      };
      try {
        if (!config) throw new Error(`unknown LLM provider "${provider}" in "${ref}"`);
        const text = await this.post(config, model, request);
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({ ...record, latencyMs, success: true });
        return { text, ref, latencyMs };
      } catch (error) {
        const raw = error instanceof Error ? error.message : String(error);
        const message = config && config.type !== "llama-cpp" ? redact(raw, config) : raw;
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({ ...record, latencyMs, success: false, error: message });
        this.options.logger.warn({ task: SPEECH_TASK, provider, model }, `transcription failed: ${message}`);
        if (request.signal?.aborted) return undefined;
      }
    }
    return undefined;
  }

  private async post(config: LlmProviderConfig, model: string, request: TranscribeRequest): Promise<string> {
    if (config.type !== "openai-compatible" && config.type !== "openai") {
      throw new Error(`provider ${config.id} (${config.type}) serves no /audio/transcriptions`);
    }
    const base = (config.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, "");
    const form = new FormData();
    const { bytes, mime, fileName } = request.audio;
    form.append("file", new Blob([bytes], { type: mime }), fileName);
    form.append("model", model);
    form.append("response_format", "json");
    const response = await this.options.fetch(`${base}/audio/transcriptions`, {
      method: "POST",
      body: form,
      headers: {
        ...config.headers,
        ...(config.apiKey === "" ? {} : { Authorization: `Bearer ${config.apiKey}` }),
      },
      signal: AbortSignal.any([
        ...(request.signal ? [request.signal] : []),
        AbortSignal.timeout(config.timeoutMs),
      ]),
    });
    const body = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${body.slice(0, 300)}`);
    let answer: unknown;
    try {
      answer = JSON.parse(body);
    } catch {
      throw new Error("the answer is not JSON");
    }
    if (!isTranscriptionAnswer(answer)) throw new Error("the answer has no text");
    return answer.text.trim();
  }
}
