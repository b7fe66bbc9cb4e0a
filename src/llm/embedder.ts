import type { EmbeddingModelV2 } from "@ai-sdk/provider";
import type { Logger } from "../log/logger.ts";
import type { LlmProviderConfig } from "./config.ts";
import { describeRef } from "./model-ref.ts";
import { createEmbeddingModel } from "./providers.ts";
import { redact } from "./redact.ts";
import type { LlmUsageRecord } from "./types.ts";

export interface EmbedRequest {
  /** Key into `llm.models` (`embedding`). */
  task: string;
  texts: string[];
  signal?: AbortSignal;
  sessionId?: string;
}

export interface Embedding {
  /** One vector per text, in order. */
  vectors: Float32Array[];
  /** The `"provider/model"` that made them: vectors of different models are never compared. */
  ref: string;
}

export interface EmbedderOptions {
  providers: LlmProviderConfig[];
  models: Record<string, string[]>;
  usage: (record: LlmUsageRecord) => void;
  logger: Logger;
  fetch: typeof globalThis.fetch;
}

/**
 * Text embeddings for a task's models (`llm.models.embedding`): each model once, in order, until
 * one answers; every attempt reported through `usage`. No retries: an embedding only sharpens
 * what memory search finds, and a turn does not wait for a second try. Undefined when no model
 * is configured or every one failed (logged).
 */
export class Embedder {
  private readonly models = new Map<string, EmbeddingModelV2<string>>();

  constructor(private readonly options: EmbedderOptions) {}

  configured(task: string): boolean {
    return (this.options.models[task] ?? []).length > 0;
  }

  async embed(request: EmbedRequest): Promise<Embedding | undefined> {
    for (const ref of this.options.models[request.task] ?? []) {
      const started = performance.now();
      const time = Date.now();
      const { provider, model } = describeRef(ref);
      const record = {
        time,
        task: request.task,
        provider,
        model,
        completionTokens: 0,
        sessionId: request.sessionId,
      };
      try {
        const config = this.options.providers.find((candidate) => candidate.id === provider);
        if (!config) throw new Error(`unknown LLM provider "${provider}" in "${ref}"`);
        const answer = await this.model(ref, config, model).doEmbed({
          values: request.texts,
          abortSignal: AbortSignal.any([
            ...(request.signal ? [request.signal] : []),
            AbortSignal.timeout(config.timeoutMs),
          ]),
        });
        if (answer.embeddings.length !== request.texts.length) {
          throw new Error(`${answer.embeddings.length} embeddings for ${request.texts.length} texts`);
        }
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({ ...record, promptTokens: answer.usage?.tokens ?? 0, latencyMs, success: true });
        return { vectors: answer.embeddings.map((vector) => Float32Array.from(vector)), ref };
      } catch (error) {
        const raw = error instanceof Error ? error.message : String(error);
        const config = this.options.providers.find((candidate) => candidate.id === provider);
        const message = config && config.type !== "llama-cpp" ? redact(raw, config) : raw;
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({ ...record, promptTokens: 0, latencyMs, success: false, error: message });
        this.options.logger.warn({ task: request.task, provider, model }, `embedding failed: ${message}`);
        if (request.signal?.aborted) return undefined;
      }
    }
    return undefined;
  }

  private model(ref: string, config: LlmProviderConfig, model: string): EmbeddingModelV2<string> {
    let built = this.models.get(ref);
    if (!built) {
      if (config.type === "llama-cpp" || config.type === "gpt-sovits" || config.type === "edge-tts")
        throw new Error(`provider ${config.id} (${config.type}) serves no embeddings`);
      built = createEmbeddingModel(config, model, this.options.fetch);
      this.models.set(ref, built);
    }
    return built;
  }
}
