import type { LanguageModelV2 } from "@ai-sdk/provider";
import type { Logger } from "../../log/logger.ts";
import type { LlamaCppProviderConfig, LlmProviderConfig } from "../config.ts";
import type { LocalLanguageModels } from "../llm-client.ts";
import { localLanguageModel } from "./language-model.ts";
import type { LlamaRuntime } from "./llama-runtime.ts";
import { LocalModel, type LocalModelStatus } from "./local-model.ts";

export interface LocalModelsDeps {
  runtime: LlamaRuntime;
  /** The checked path of a `model` value (see `ModelFiles.verify`). */
  modelPath: (reference: string) => string;
  logger: Logger;
}

/**
 * The loaded local models, one per llama-cpp provider. They outlive the LLM clients rebuilt on
 * each config reload: a provider keeps its loaded model while its settings stay the same.
 */
export class LocalModels implements LocalLanguageModels {
  private readonly models = new Map<string, { settings: string; model: LocalModel }>();

  constructor(private readonly deps: LocalModelsDeps) {}

  languageModel(provider: LlamaCppProviderConfig, model: string): LanguageModelV2 {
    return localLanguageModel(this.modelFor(provider), provider.id, model);
  }

  /** Releases the models of providers that are gone or changed (after a config reload). */
  async retain(providers: LlmProviderConfig[]): Promise<void> {
    const current = new Map(
      providers.flatMap((p) => (p.type === "llama-cpp" ? [[p.id, settingsOf(p)]] : [])),
    );
    for (const [id, entry] of this.models) {
      if (current.get(id) === entry.settings) continue;
      this.models.delete(id);
      await entry.model.close();
    }
  }

  statuses(): LocalModelStatus[] {
    return [...this.models.values()].map((entry) => entry.model.status());
  }

  async close(): Promise<void> {
    const entries = [...this.models.values()];
    this.models.clear();
    await Promise.all(entries.map((entry) => entry.model.close()));
  }

  private modelFor(provider: LlamaCppProviderConfig): LocalModel {
    const settings = settingsOf(provider);
    const existing = this.models.get(provider.id);
    if (existing?.settings === settings) return existing.model;
    if (existing) {
      existing.model
        .close()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "closing a local model failed"));
    }
    const model = new LocalModel({ ...this.deps, config: provider });
    this.models.set(provider.id, { settings, model });
    return model;
  }
}

function settingsOf(provider: LlamaCppProviderConfig): string {
  return JSON.stringify([provider.model, provider.threads, provider.contextSize, provider.gpu]);
}
