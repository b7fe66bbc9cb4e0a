/**
 * The part of node-llama-cpp's API that Tsumugi uses. The library is not a dependency of the
 * project (its native builds weigh ~730 MB): it is installed on demand into the runtime
 * folder (see `llama-runtime.ts`), so its types are declared here, at the boundary, and checked by
 * the tests that load it.
 */

export interface LlamaBinding {
  getLlama(options: {
    gpu: "auto" | false;
    /** "never": use the prebuilt binaries; never compile or download llama.cpp. */
    build: "never";
    skipDownload: true;
    logLevel: LlamaLogLevel;
    logger: (level: LlamaLogLevel, message: string) => void;
    maxThreads?: number;
  }): Promise<Llama>;
  LlamaChat: new (options: { contextSequence: LlamaContextSequence; chatWrapper: "auto" }) => LlamaChat;
}

export type LlamaLogLevel = "disabled" | "fatal" | "error" | "warn" | "info" | "log" | "debug";

export interface Llama {
  /** Physical cores doing math: the thread count that does not oversubscribe the CPU. */
  readonly cpuMathCores: number;
  /** The GPU backend in use, or false on the CPU. */
  readonly gpu: string | false;
  loadModel(options: { modelPath: string; gpuLayers?: 0 }): Promise<LlamaModel>;
  createGrammarForJsonSchema(schema: Record<string, unknown>): Promise<LlamaGrammar>;
  dispose(): Promise<void>;
}

export interface LlamaModel {
  /** Bytes of weights in memory. */
  readonly size: number;
  readonly trainContextSize: number;
  createContext(options: { contextSize: number; threads: number; sequences: 1 }): Promise<LlamaContext>;
  dispose(): Promise<void>;
}

export interface LlamaContext {
  readonly contextSize: number;
  getSequence(): LlamaContextSequence;
  dispose(): Promise<void>;
}

export interface LlamaContextSequence {
  readonly tokenMeter: { readonly usedInputTokens: number; readonly usedOutputTokens: number };
}

// biome-ignore lint/suspicious/noEmptyInterface: an opaque handle passed back to the library
export interface LlamaGrammar {}

export type ChatHistoryItem =
  | { type: "system"; text: string }
  | { type: "user"; text: string }
  | { type: "model"; response: string[] };

export type LlamaStopReason =
  | "eogToken"
  | "stopGenerationTrigger"
  | "functionCalls"
  | "maxTokens"
  | "abort"
  | "customStopTrigger";

export interface LlamaChat {
  readonly chatWrapper: { readonly wrapperName: string };
  generateResponse(
    history: ChatHistoryItem[],
    options: {
      grammar?: LlamaGrammar;
      maxTokens: number;
      temperature: number;
      signal?: AbortSignal;
      stopOnAbortSignal: false;
      onToken?: (tokens: number[]) => void;
    },
  ): Promise<{ response: string; metadata: { stopReason: LlamaStopReason } }>;
  dispose(): void;
}
