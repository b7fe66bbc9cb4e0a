import { type Static, Type } from "@sinclair/typebox";
import { count, formattedString, group, milliseconds, stringEnum, taggedUnion } from "../schema/fields.ts";

const providerCommon = {
  id: formattedString("identifier", {
    description: 'Provider id, the part before "/" in llm.models entries.',
  }),
  timeoutMs: milliseconds("Limit for one request", 60_000),
};

const remoteProviderCommon = {
  ...providerCommon,
  apiKey: Type.String({ default: "", writeOnly: true, description: "API key; empty means none." }),
  maxRetries: count("Retries after a failed request", 2, 0),
  // Header values are secrets: Authorization, x-api-key and the like carry keys.
  headers: Type.Record(Type.String(), Type.String({ writeOnly: true }), {
    default: {},
    description: "Extra HTTP headers sent with every request.",
  }),
};

const openAiCompatibleProviderSchema = Type.Object(
  {
    ...remoteProviderCommon,
    type: Type.Literal("openai-compatible"),
    baseUrl: formattedString("http-url", { description: "API base URL, e.g. https://api.deepseek.com/v1." }),
  },
  { additionalProperties: false },
);

const vendorProviderSchema = Type.Object(
  {
    ...remoteProviderCommon,
    type: stringEnum(["openai", "gemini", "anthropic"], { description: "Vendor API." }),
    baseUrl: Type.Optional(
      formattedString("http-url", { description: "API base URL; the vendor's own when absent." }),
    ),
  },
  { additionalProperties: false },
);

const llamaCppProviderSchema = Type.Object(
  {
    ...providerCommon,
    type: Type.Literal("llama-cpp"),
    model: Type.String({
      minLength: 1,
      description:
        'GGUF model run in-process: a .gguf path, or a recommended model by name (e.g. "qwen2.5-1.5b-instruct-q4", fetched with npm run model -- pull).',
    }),
    threads: count(
      "CPU threads; 0 means one per physical core but one, which the bot itself needs (more only slows generation)",
      0,
      0,
    ),
    contextSize: count("Context window in tokens", 8192),
    gpu: Type.Unsafe<"auto" | false>({
      enum: ["auto", false],
      default: "auto",
      description: 'GPU offloading: "auto" uses one when available, false runs on the CPU only.',
    }),
  },
  { additionalProperties: false },
);

const gptSovitsVoiceSchema = Type.Object(
  {
    refAudioPath: Type.String({
      minLength: 1,
      description: "The reference audio's path as the GPT-SoVITS server reads it (ref_audio_path).",
    }),
    promptText: Type.String({ default: "", description: "What the reference audio says (prompt_text)." }),
    promptLang: Type.String({
      minLength: 1,
      default: "zh",
      description: "The reference audio's language (prompt_lang): zh, en, ja, ko, yue, auto, …",
    }),
  },
  { additionalProperties: false },
);

const gptSovitsProviderSchema = Type.Object(
  {
    ...providerCommon,
    type: Type.Literal("gpt-sovits"),
    baseUrl: formattedString("http-url", {
      description: "The GPT-SoVITS API server (api_v2.py), e.g. http://127.0.0.1:9880.",
    }),
    headers: Type.Record(Type.String(), Type.String({ writeOnly: true }), {
      default: {},
      description: "Extra HTTP headers sent with every request.",
    }),
    textLang: Type.String({
      minLength: 1,
      default: "auto",
      description: "The language of the text spoken (text_lang): auto, zh, en, ja, ko, yue, …",
    }),
    voices: Type.Record(Type.String({ minLength: 1 }), gptSovitsVoiceSchema, {
      default: {},
      description: "Voice name → its reference audio; bot.voice names one (the first when it names none).",
    }),
  },
  { additionalProperties: false },
);

const edgeTtsProviderSchema = Type.Object(
  {
    ...providerCommon,
    type: Type.Literal("edge-tts"),
    proxy: Type.Optional(
      // A proxy URL may carry its credentials.
      formattedString("http-url", {
        writeOnly: true,
        description: "An HTTP proxy to reach Edge's read-aloud service through.",
      }),
    ),
  },
  { additionalProperties: false },
);

const providerSchema = taggedUnion(
  "type",
  ["openai-compatible", "openai", "gemini", "anthropic", "llama-cpp", "gpt-sovits", "edge-tts"],
  [
    openAiCompatibleProviderSchema,
    vendorProviderSchema,
    llamaCppProviderSchema,
    gptSovitsProviderSchema,
    edgeTtsProviderSchema,
  ],
  { description: "One LLM provider." },
);

const modelRefList = (description: string) =>
  Type.Array(formattedString("model-ref", { description: '"provider/model", split at the first "/".' }), {
    default: [],
    description,
  });

const modelsSchema = Type.Unsafe<{
  planner: string[];
  replyer: string[];
  vision: string[];
  memory: string[];
  embedding: string[];
  expressions: string[];
  speech: string[];
  tts: string[];
  image: string[];
  gate: string[];
  economy: string[];
  [task: string]: string[];
}>(
  Type.Object(
    {
      planner: modelRefList("Models that decide what to do, tried in order."),
      replyer: modelRefList("Models that write the reply text, tried in order."),
      vision: modelRefList(
        "Models that describe pictures and stickers (they must accept images), tried in order; empty: pictures stay placeholders and nothing is fetched.",
      ),
      memory: modelRefList(
        "Models that learn long-term memory in the background (a cheap chat model), tried in order; empty: only what the planner and plugins remember is kept.",
      ),
      gate: modelRefList(
        "A small model asked yes or no before the bot joins a conversation unasked (chat.participation), to save the planner's cost; empty: no such question.",
      ),
      embedding: modelRefList(
        "Embedding models (openai, openai-compatible or gemini providers) whose vector similarity joins term search in memory recall, tried in order; empty: terms alone.",
      ),
      expressions: modelRefList(
        "Models that learn each group's way of talking in the background (chat.expressions), tried in order; empty: the replyer's.",
      ),
      speech: modelRefList(
        "Speech-to-text models (openai or openai-compatible providers answering POST /audio/transcriptions: Whisper, SenseVoice, a local whisper server) that transcribe voice messages, tried in order; empty: voice messages stay [语音] and nothing is fetched.",
      ),
      economy: modelRefList(
        "Cheaper models that run both the planner and the replyer of a group or user whose spending reached limits.economyAt of a budget, tried in order; empty: no stepping down.",
      ),
      tts: modelRefList(
        'Text-to-speech models the planner\'s send_voice speaks with, tried in order: openai or openai-compatible providers (POST /audio/speech: OpenAI, SiliconFlow CosyVoice), gpt-sovits and edge-tts providers (the part after "/" is only a label for these); empty: no send_voice.',
      ),
      image: modelRefList(
        "Image models the planner's generate_image draws with (openai or openai-compatible providers answering POST /images/generations: OpenAI, SiliconFlow Kolors/FLUX), tried in order; empty: no generate_image.",
      ),
    },
    {
      default: {},
      additionalProperties: modelRefList("Models for this task, tried in order."),
      description: "Task → ordered fallback list of models. An empty list means the bot stays silent.",
    },
  ),
);

const pricesSchema = Type.Record(
  Type.String(),
  Type.Object(
    {
      input: Type.Number({ minimum: 0, description: "Price of a million prompt tokens." }),
      output: Type.Number({ minimum: 0, description: "Price of a million completion tokens." }),
      cachedInput: Type.Optional(
        Type.Number({
          minimum: 0,
          description:
            "Price of a million prompt tokens the provider read from its prompt cache (where it reports them); absent: the input price.",
        }),
      ),
      currency: Type.String({
        minLength: 1,
        maxLength: 8,
        default: "CNY",
        description: "Currency of these prices (CNY, USD, …); every price in llm.prices uses the same one.",
      }),
    },
    { additionalProperties: false },
  ),
  {
    default: {},
    description:
      "\"provider/model\" → prices per million tokens: each call's cost is recorded at them, for the console's bill and the money budgets (limits.*Cost).",
  },
);

export const llmSchema = group("Language models.", {
  providers: Type.Array(providerSchema, { default: [], description: "Where models are served." }),
  models: modelsSchema,
  acceptsImages: Type.Array(
    formattedString("model-ref", { description: '"provider/model", split at the first "/".' }),
    {
      default: [],
      description:
        "Models that accept images: as planner or replyer they are also shown the pictures of the turn's new messages (looking directly); other models get the text alone.",
    },
  ),
  prices: pricesSchema,
  modelMirror: Type.String({
    default: "",
    pattern: "^$|^https?://",
    description:
      'Base URL of a Hugging Face mirror that local models download from instead of https://huggingface.co (as HF_ENDPOINT), e.g. "https://hf-mirror.com"; empty: the HF_ENDPOINT environment variable of `npm run model`, else huggingface.co.',
  }),
});

/** One `llm.providers[]` entry, with defaults already applied by the config loader. */
export type LlmProviderConfig = Static<typeof providerSchema>;
/** A provider of chat models reached over HTTP. */
export type RemoteProviderConfig = Extract<
  LlmProviderConfig,
  { type: "openai-compatible" | "openai" | "gemini" | "anthropic" }
>;
/** A provider that only speaks (`llm.models.tts`): a GPT-SoVITS server, or Edge's read-aloud voices. */
export type SpeechOnlyProviderConfig = Extract<LlmProviderConfig, { type: "gpt-sovits" | "edge-tts" }>;
/** A GGUF model run in-process by llama.cpp. */
export type LlamaCppProviderConfig = Extract<LlmProviderConfig, { type: "llama-cpp" }>;
/** The `llm` group, with defaults applied. */
export type LlmSettings = Static<typeof llmSchema>;
