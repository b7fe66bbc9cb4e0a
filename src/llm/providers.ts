import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModelV2, LanguageModelV2 } from "@ai-sdk/provider";
import type { RemoteProviderConfig } from "./config.ts";

/**
 * Builds the AI SDK model for one configured provider and model name. The API key is always
 * passed explicitly, so the SDKs never fall back to their environment variables.
 *
 * Throws for a provider that cannot be called (openai-compatible without a baseUrl); the
 * client treats that as a failed attempt and moves to the next model. Local (llama-cpp)
 * models are built by `src/llm/llama-cpp/`.
 */
export function createLanguageModel(
  provider: RemoteProviderConfig,
  model: string,
  fetch: typeof globalThis.fetch,
): LanguageModelV2 {
  const common = commonOptions(provider, fetch);
  switch (provider.type) {
    case "openai-compatible":
      return openAICompatible(provider, fetch)(model);
    case "openai":
      // Chat Completions rather than the Responses API, so OpenAI-compatible gateways work too.
      // For reasoning models (o*, gpt-5*) the SDK itself drops temperature, sends
      // max_completion_tokens instead of max_tokens and turns system messages into developer ones.
      return createOpenAI({ ...common, name: provider.id }).chat(model);
    case "gemini":
      return createGoogleGenerativeAI(common)(model);
    case "anthropic":
      return createAnthropic(common)(model);
  }
}

/**
 * The AI SDK embedding model for one configured provider and model name (`llm.models.embedding`).
 * Anthropic serves no embeddings; the call fails as an attempt does and the next model is tried.
 */
export function createEmbeddingModel(
  provider: RemoteProviderConfig,
  model: string,
  fetch: typeof globalThis.fetch,
): EmbeddingModelV2<string> {
  const common = commonOptions(provider, fetch);
  switch (provider.type) {
    case "openai-compatible":
      return openAICompatible(provider, fetch).textEmbeddingModel(model);
    case "openai":
      return createOpenAI({ ...common, name: provider.id }).textEmbeddingModel(model);
    case "gemini":
      return createGoogleGenerativeAI(common).textEmbeddingModel(model);
    case "anthropic":
      throw new Error(`provider ${provider.id} (anthropic) serves no embeddings`);
  }
}

/** The API key is always passed explicitly, so the SDKs never fall back to their environment variables. */
function commonOptions(provider: RemoteProviderConfig, fetch: typeof globalThis.fetch) {
  return { apiKey: provider.apiKey, headers: provider.headers, baseURL: provider.baseUrl, fetch };
}

function openAICompatible(provider: RemoteProviderConfig, fetch: typeof globalThis.fetch) {
  if (!provider.baseUrl) throw new Error(`provider ${provider.id} (openai-compatible) needs a baseUrl`);
  return createOpenAICompatible({
    ...commonOptions(provider, fetch),
    baseURL: provider.baseUrl,
    name: provider.id,
    includeUsage: true,
  });
}
