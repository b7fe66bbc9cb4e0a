import { setTimeout as sleepFor } from "node:timers/promises";
import type { LanguageModelV2, LanguageModelV2CallOptions } from "@ai-sdk/provider";
import type { Logger } from "../log/logger.ts";
import { type ClassifiedError, classifyError } from "./attempt-error.ts";
import type { LlamaCppProviderConfig, LlmProviderConfig } from "./config.ts";
import { Embedder } from "./embedder.ts";
import { ImageMaker } from "./image-maker.ts";
import { createKeepAliveFetch } from "./keepalive-fetch.ts";
import { describeRef, type ModelRef, parseModelRef } from "./model-ref.ts";
import { createLanguageModel } from "./providers.ts";
import { redact } from "./redact.ts";
import { fromContent, toFunctionTools, toPrompt } from "./sdk-conversion.ts";
import { Speaker } from "./speaker.ts";
import { type ModelAnswer, streamAnswer } from "./stream-answer.ts";
import { Transcriber } from "./transcriber.ts";
import {
  type LlmAttemptFailure,
  LlmError,
  type LlmRequest,
  type LlmResult,
  type LlmUsageRecord,
} from "./types.ts";

/** Builds the models of `llama-cpp` providers; they outlive clients rebuilt on config reload. */
export interface LocalLanguageModels {
  languageModel(provider: LlamaCppProviderConfig, model: string): LanguageModelV2;
}

export interface LlmClientOptions {
  providers: LlmProviderConfig[];
  /** Needed only when a provider has type `llama-cpp`. */
  localModels?: LocalLanguageModels;
  /** Task → ordered fallback list of `"provider/model"` references. */
  models: Record<string, string[]>;
  /** The task lists in force in one chat (its per-group models), for a request that names its chat. */
  modelsInChat?: (sessionId: string) => Record<string, string[]>;
  /** `"provider/model"` references of models that accept images (`llm.acceptsImages`). */
  acceptsImages?: readonly string[];
  usage: (record: LlmUsageRecord) => void;
  logger: Logger;
  /** First retry waits this long, doubling after each retry. Default 200 ms. */
  retryBaseDelayMs?: number;
  /** A server's `retry-after` longer than this is not waited for: the next model is tried. Default 10 s. */
  maxRetryAfterMs?: number;
  /** Waits between retries; tests replace it to run without real delays. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface ResolvedModel extends ModelRef {
  ref: string;
  config: LlmProviderConfig;
  sdkModel: LanguageModelV2;
}

type AttemptOutcome = { ok: true; result: LlmResult } | { ok: false; error: ClassifiedError };

const DEFAULT_RETRY_BASE_DELAY_MS = 200;
const DEFAULT_MAX_RETRY_AFTER_MS = 10_000;
/** The tasks of a turn that `llm.models.economy` stands in for while it is near a budget. */
const ECONOMY_TASKS = new Set(["planner", "replyer"]);

/**
 * Runs one LLM round (no tool execution, one step) for a task, walking the task's model list:
 * each model is retried on transient failures (429, 5xx, timeouts, network errors) with
 * exponential backoff, then the next model is tried; other 4xx answers skip to the next
 * model at once. Every attempt is reported through `usage`. A request with a `stream` sink
 * is streamed; its retries and fallbacks stop once the sink has used part of an answer.
 */
export class LlmClient {
  private readonly providers: Map<string, LlmProviderConfig>;
  private readonly sdkModels = new Map<string, LanguageModelV2>();
  /** One pool of keep-alive connections for all of this client's models. */
  private readonly fetch = createKeepAliveFetch();
  /** Models that answered 400 to a temperature: never sent one again. */
  private readonly withoutTemperature = new Set<string>();
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Text embeddings (`llm.models.embedding`), on this client's providers and connections. */
  readonly embedder: Embedder;
  /** Speech to text (`llm.models.speech`), on this client's providers and connections. */
  readonly transcriber: Transcriber;
  /** Text to speech (`llm.models.tts`), on this client's providers and connections. */
  readonly speaker: Speaker;
  /** Pictures (`llm.models.image`), on this client's providers and connections. */
  readonly imageMaker: ImageMaker;

  constructor(private readonly options: LlmClientOptions) {
    this.providers = new Map(options.providers.map((provider) => [provider.id, provider]));
    this.sleep = options.sleep ?? ((ms, signal) => sleepFor(ms, undefined, { signal }));
    this.embedder = new Embedder({ ...options, fetch: this.fetch });
    this.transcriber = new Transcriber({ ...options, fetch: this.fetch });
    this.speaker = new Speaker({ ...options, fetch: this.fetch });
    this.imageMaker = new ImageMaker({ ...options, fetch: this.fetch });
  }

  async generate(request: LlmRequest): Promise<LlmResult> {
    const { models, modelsInChat } = this.options;
    const inForce =
      request.sessionId !== undefined && modelsInChat ? modelsInChat(request.sessionId) : models;
    const economy = request.economy && ECONOMY_TASKS.has(request.task) ? inForce.economy : undefined;
    const refs = economy?.length ? economy : (inForce[request.task] ?? []);
    if (refs.length === 0) {
      throw new LlmError(
        "no_model",
        `no model is configured for the LLM task "${request.task}" (set llm.models.${request.task})`,
        request.task,
      );
    }
    const failures: LlmAttemptFailure[] = [];
    for (const ref of refs) {
      const result = await this.tryModel(ref, request, failures);
      if (result) return result;
    }
    const summary = attemptSummary(failures);
    // One warning for the call, the same failure of every retry said once (each attempt: debug).
    this.options.logger.warn(
      { task: request.task, replyId: request.replyId, attempts: failures.length },
      `LLM call failed: ${summary}`,
    );
    throw new LlmError(
      "all_failed",
      `every model for the LLM task "${request.task}" failed (${summary})`,
      request.task,
      failures,
    );
  }

  /** Attempts one model until it answers or gives up; failures are appended to `failures`. */
  private async tryModel(
    ref: string,
    request: LlmRequest,
    failures: LlmAttemptFailure[],
  ): Promise<LlmResult | undefined> {
    let target: ResolvedModel;
    try {
      target = this.resolve(ref);
    } catch (error) {
      const { provider, model } = describeRef(ref);
      const message = error instanceof Error ? error.message : String(error);
      this.reportFailure(request, { provider, model, message }, Date.now(), 0, 1);
      failures.push({ provider, model, message });
      return undefined;
    }

    let retries = 0;
    for (let attempt = 1; ; attempt++) {
      this.throwIfAborted(request, failures);
      const outcome = await this.attempt(target, request, attempt, failures);
      if (outcome.ok) return outcome.result;
      this.throwIfAborted(request, failures);
      const { error } = outcome;

      const sentTemperature = request.temperature !== undefined && !this.withoutTemperature.has(ref);
      if (error.rejectsTemperature && sentTemperature) {
        this.withoutTemperature.add(ref);
        this.options.logger.info(
          { provider: target.provider, model: target.model },
          "model rejects temperature",
        );
        continue;
      }
      if (!error.retryable || retries >= maxRetries(target.config)) return undefined;
      const delayMs = this.retryDelay(error, retries);
      if (delayMs === undefined) return undefined;
      retries++;
      try {
        await this.sleep(delayMs, request.signal);
      } catch {
        this.throwIfAborted(request, failures);
      }
    }
  }

  private async attempt(
    target: ResolvedModel,
    request: LlmRequest,
    attempt: number,
    failures: LlmAttemptFailure[],
  ): Promise<AttemptOutcome> {
    if (request.stream && !request.stream.restart()) {
      throw new LlmError(
        "broken_off",
        `the streamed answer for "${request.task}" broke off after part of it was used, so it is not asked again (${failures.at(-1)?.message ?? "no reason"})`,
        request.task,
        failures,
      );
    }
    // One controller per attempt, cleared when it ends: cheaper than AbortSignal.timeout/any,
    // whose listeners linger until garbage collection on Node 20.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${target.config.timeoutMs} ms`));
    }, target.config.timeoutMs);
    const forwardAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener("abort", forwardAbort, { once: true });
    const time = Date.now();
    const started = performance.now();
    try {
      const withTemperature = !this.withoutTemperature.has(target.ref) && request.temperature !== undefined;
      // Each attempt's request matches its model: a fallback that cannot see gets the text alone.
      const withImages =
        !request.imagesOnlyIfAccepted || (this.options.acceptsImages ?? []).includes(target.ref);
      const options: LanguageModelV2CallOptions = {
        prompt: toPrompt(request.messages, withImages),
        ...(request.tools?.length
          ? {
              tools: toFunctionTools(request.tools),
              toolChoice: { type: request.toolChoice ?? "auto" },
            }
          : {}),
        ...(withTemperature ? { temperature: request.temperature } : {}),
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
        abortSignal: controller.signal,
      };
      // The timer above bounds the whole attempt, so a stream that stalls midway times out too.
      const response: ModelAnswer = request.stream
        ? await streamAnswer(target.sdkModel, options, request.stream, started)
        : await target.sdkModel.doGenerate(options);
      const { text, toolCalls } = fromContent(response.content);
      const latencyMs = Math.round(performance.now() - started);
      const result: LlmResult = {
        text,
        toolCalls,
        usage: {
          promptTokens: response.usage.inputTokens ?? 0,
          completionTokens: response.usage.outputTokens ?? 0,
          ...(response.usage.cachedInputTokens !== undefined && {
            cachedPromptTokens: response.usage.cachedInputTokens,
          }),
        },
        provider: target.provider,
        model: target.model,
        latencyMs,
        ...(response.firstTokenMs === undefined ? {} : { firstTokenMs: response.firstTokenMs }),
        finishReason: response.finishReason,
      };
      this.options.usage({
        time,
        task: request.task,
        provider: target.provider,
        model: target.model,
        ...result.usage,
        latencyMs,
        success: true,
        replyId: request.replyId,
        sessionId: request.sessionId,
        userKey: request.userKey,
      });
      if (response.warnings?.length) {
        this.options.logger.debug(
          { provider: target.provider, model: target.model, warnings: response.warnings },
          "LLM call warnings",
        );
      }
      return { ok: true, result };
    } catch (caught) {
      const latencyMs = Math.round(performance.now() - started);
      const aborted = request.signal?.aborted === true;
      const error = aborted
        ? { message: "aborted", retryable: false, rejectsTemperature: false }
        : classifyError(caught, timedOut, target.config.timeoutMs);
      if (target.config.type !== "llama-cpp") error.message = redact(error.message, target.config);
      const failure = {
        provider: target.provider,
        model: target.model,
        status: error.status,
        message: error.message,
      };
      this.reportFailure(request, failure, time, latencyMs, attempt);
      failures.push(failure);
      return { ok: false, error };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", forwardAbort);
    }
  }

  private resolve(ref: string): ResolvedModel {
    const { provider, model } = parseModelRef(ref);
    const config = this.providers.get(provider);
    if (!config) throw new Error(`unknown LLM provider "${provider}" in "${ref}"`);
    if (config.type === "gpt-sovits" || config.type === "edge-tts") {
      throw new Error(`provider ${config.id} (${config.type}) only speaks: use it in llm.models.tts`);
    }
    let sdkModel = this.sdkModels.get(ref);
    if (!sdkModel) {
      sdkModel =
        config.type === "llama-cpp"
          ? this.localModel(config, model)
          : createLanguageModel(config, model, this.fetch);
      this.sdkModels.set(ref, sdkModel);
    }
    return { ref, provider, model, config, sdkModel };
  }

  private localModel(config: LlamaCppProviderConfig, model: string): LanguageModelV2 {
    if (!this.options.localModels)
      throw new Error(`provider ${config.id} (llama-cpp): local models are not available here`);
    return this.options.localModels.languageModel(config, model);
  }

  /** Backoff for the retry after `retries` earlier ones; undefined when the server asks for too long a wait. */
  private retryDelay(error: ClassifiedError, retries: number): number | undefined {
    const maxRetryAfterMs = this.options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    if (error.retryAfterMs !== undefined) {
      return error.retryAfterMs <= maxRetryAfterMs ? error.retryAfterMs : undefined;
    }
    return (this.options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS) * 2 ** retries;
  }

  private reportFailure(
    request: LlmRequest,
    failure: LlmAttemptFailure,
    time: number,
    latencyMs: number,
    attempt: number,
  ): void {
    this.options.usage({
      time,
      task: request.task,
      provider: failure.provider,
      model: failure.model,
      promptTokens: 0,
      completionTokens: 0,
      latencyMs,
      success: false,
      error: failure.message,
      replyId: request.replyId,
      sessionId: request.sessionId,
      userKey: request.userKey,
    });
    this.options.logger.debug(
      {
        task: request.task,
        provider: failure.provider,
        model: failure.model,
        status: failure.status,
        attempt,
        replyId: request.replyId,
      },
      `LLM attempt failed: ${failure.message}`,
    );
  }

  private throwIfAborted(request: LlmRequest, failures: LlmAttemptFailure[]): void {
    if (request.signal?.aborted) {
      throw new LlmError("aborted", `the LLM call for "${request.task}" was aborted`, request.task, failures);
    }
  }
}

/** A local model's failure (missing file, out of memory) does not pass by retrying. */
function maxRetries(config: LlmProviderConfig): number {
  return "maxRetries" in config ? config.maxRetries : 0;
}

/** `main/gpt: 401 Unauthorized (×3); backup/m: timed out`: each distinct failure once, in order. */
export function attemptSummary(failures: readonly LlmAttemptFailure[]): string {
  const counts = new Map<string, number>();
  for (const failure of failures) {
    const line = `${failure.provider}/${failure.model}: ${failure.message}`;
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts].map(([line, count]) => (count > 1 ? `${line} (×${count})` : line)).join("; ");
}
