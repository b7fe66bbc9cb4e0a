import type { Logger } from "../../log/logger.ts";
import type { LlamaCppProviderConfig } from "../config.ts";
import type {
  ChatHistoryItem,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  LlamaStopReason,
} from "./binding.ts";
import { GenerationQueue } from "./generation-queue.ts";
import type { LlamaRuntime } from "./llama-runtime.ts";

export interface LocalGeneration {
  history: ChatHistoryItem[];
  /** JSON Schema the answer must match (compiled to a grammar and cached). */
  schema?: Record<string, unknown>;
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
}

export interface LocalAnswer {
  text: string;
  stopReason: LlamaStopReason;
  /** Prompt tokens evaluated: those not already in the KV cache from the previous request. */
  promptTokens: number;
  completionTokens: number;
}

export type LocalModelState = "unloaded" | "loading" | "ready" | "failed";

export interface LocalModelStatus {
  providerId: string;
  /** The `model` value of the provider. */
  model: string;
  state: LocalModelState;
  /** Why the last load failed. */
  error?: string;
  threads?: number;
  contextSize?: number;
  gpu?: string | false;
  loadMs?: number;
  memory?: { modelBytes: number };
  /** Generation speed of the last answer (after its prompt was read). */
  tokensPerSecond?: number;
  generations: number;
  queued: number;
}

export interface LocalModelDeps {
  config: LlamaCppProviderConfig;
  runtime: LlamaRuntime;
  /** The checked path of the configured model; throws one clear error when it cannot be used. */
  modelPath: (reference: string) => string;
  logger: Logger;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  chat: LlamaChat;
}

/** Compiled grammars kept per tool set; the planner's set is the same every turn. */
const MAX_GRAMMARS = 16;

/**
 * One GGUF model in-process, shared by every session: loaded on first use (no start-up cost,
 * no work for a bot that never calls it), one context with one sequence so memory is bounded
 * by `contextSize`, requests queued first come first served, released by `close()`.
 */
export class LocalModel {
  private loading: Promise<Loaded> | undefined;
  private readonly queue = new GenerationQueue();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private readonly state: Omit<LocalModelStatus, "providerId" | "model" | "queued"> = {
    state: "unloaded",
    generations: 0,
  };
  private closed = false;

  constructor(private readonly deps: LocalModelDeps) {}

  generate(request: LocalGeneration): Promise<LocalAnswer> {
    return this.queue.run(async () => {
      const loaded = await this.load();
      const grammar = request.schema ? await this.grammar(loaded.llama, request.schema) : undefined;
      return this.run(loaded, request, grammar);
    }, request.signal);
  }

  status(): LocalModelStatus {
    return {
      providerId: this.deps.config.id,
      model: this.deps.config.model,
      ...this.state,
      queued: this.queue.waiting,
    };
  }

  /** Releases the model and its context; requests after this fail. */
  async close(): Promise<void> {
    this.closed = true;
    const loaded = await this.loading?.catch(() => undefined);
    this.loading = undefined;
    if (!loaded) return;
    loaded.chat.dispose();
    await loaded.context.dispose();
    await loaded.model.dispose();
    await loaded.llama.dispose();
    this.state.state = "unloaded";
  }

  private load(): Promise<Loaded> {
    if (this.closed) return Promise.reject(new Error(`local model ${this.deps.config.id} is closed`));
    if (!this.loading) {
      this.loading = this.loadOnce();
      // A failed load is tried again on the next request (the user may have fixed the file).
      this.loading.catch(() => {
        this.loading = undefined;
      });
    }
    return this.loading;
  }

  private async loadOnce(): Promise<Loaded> {
    const { config, logger } = this.deps;
    const started = performance.now();
    this.state.state = "loading";
    try {
      const modelPath = this.deps.modelPath(config.model);
      const binding = await this.deps.runtime.load();
      const llama = await binding.getLlama({
        gpu: config.gpu,
        build: "never",
        skipDownload: true,
        logLevel: "warn",
        logger: (level, message) => logLibraryLine(logger, level, message),
        ...(config.threads > 0 ? { maxThreads: config.threads } : {}),
      });
      const threads = config.threads > 0 ? config.threads : defaultThreads(llama.cpuMathCores);
      const model = await llama
        .loadModel({ modelPath, ...(llama.gpu === false ? { gpuLayers: 0 as const } : {}) })
        .catch((error: unknown) => {
          throw new Error(`could not load model file ${modelPath}: ${messageOf(error)}`);
        });
      const contextSize = Math.min(config.contextSize, model.trainContextSize);
      const context = await model.createContext({ contextSize, threads, sequences: 1 });
      const sequence = context.getSequence();
      const chat = new binding.LlamaChat({ contextSequence: sequence, chatWrapper: "auto" });
      const loadMs = Math.round(performance.now() - started);
      Object.assign(this.state, {
        state: "ready",
        error: undefined,
        threads,
        contextSize,
        gpu: llama.gpu,
        loadMs,
        memory: { modelBytes: model.size },
      });
      logger.info(
        {
          provider: config.id,
          modelPath,
          threads,
          contextSize,
          gpu: llama.gpu,
          loadMs,
          chat: chat.chatWrapper.wrapperName,
        },
        "local model loaded",
      );
      return { llama, model, context, sequence, chat };
    } catch (error) {
      this.state.state = "failed";
      this.state.error = messageOf(error);
      logger.error({ provider: config.id }, `local model not loaded: ${this.state.error}`);
      throw error;
    }
  }

  private grammar(llama: Llama, schema: Record<string, unknown>): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      if (this.grammars.size >= MAX_GRAMMARS) this.grammars.delete(this.grammars.keys().next().value!);
      grammar = llama.createGrammarForJsonSchema(schema);
      grammar.catch(() => this.grammars.delete(key));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  private async run(loaded: Loaded, request: LocalGeneration, grammar: LlamaGrammar | undefined) {
    const meter = loaded.sequence.tokenMeter;
    const inputBefore = meter.usedInputTokens;
    const outputBefore = meter.usedOutputTokens;
    let firstTokenAt: number | undefined;
    let lastTokenAt = 0;
    const answer = await loaded.chat.generateResponse(request.history, {
      ...(grammar ? { grammar } : {}),
      maxTokens: request.maxTokens,
      temperature: request.temperature,
      signal: request.signal,
      stopOnAbortSignal: false,
      onToken: () => {
        lastTokenAt = performance.now();
        firstTokenAt ??= lastTokenAt;
      },
    });
    const completionTokens = meter.usedOutputTokens - outputBefore;
    if (firstTokenAt !== undefined && completionTokens > 1 && lastTokenAt > firstTokenAt) {
      this.state.tokensPerSecond = ((completionTokens - 1) * 1000) / (lastTokenAt - firstTokenAt);
    }
    this.state.generations++;
    return {
      text: answer.response,
      stopReason: answer.metadata.stopReason,
      promptTokens: meter.usedInputTokens - inputBefore,
      completionTokens,
    };
  }
}

/**
 * One thread per physical core, less the one the JavaScript thread needs: it samples every
 * token between llama.cpp's steps, and when llama.cpp's spinning threads take all the cores
 * (2 threads on 2 cores) generation ran about 100× slower here.
 */
function defaultThreads(physicalCores: number): number {
  return Math.max(1, physicalCores - 1);
}

function logLibraryLine(logger: Logger, level: string, message: string): void {
  const line = message.trim();
  if (!line) return;
  if (level === "error" || level === "fatal") logger.error({ library: "llama.cpp" }, line);
  else logger.debug({ library: "llama.cpp", level }, line);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
