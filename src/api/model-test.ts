import type { TsumugiConfig } from "../config/schema.ts";
import { LlmClient, type LocalLanguageModels } from "../llm/llm-client.ts";
import { LlmError, type LlmUsageRecord } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ModelTestResult } from "./types.ts";

export type ModelTester = (
  provider: TsumugiConfig["llm"]["providers"][number],
  model: string,
) => Promise<ModelTestResult>;

const TEST_TASK = "test";
const TEST_PROMPT = "Reply with the single word OK.";

/**
 * Builds the console's "test" button: one short request to one model, without retries, so the
 * user learns at once whether the URL, key and model name work. The call is recorded as usage
 * under the task `test`, like any other spend.
 */
export function createModelTester(
  usage: (record: LlmUsageRecord) => void,
  localModels: LocalLanguageModels,
  logger: Logger,
): ModelTester {
  return async (provider, model) => {
    const client = new LlmClient({
      providers: ["maxRetries" in provider ? { ...provider, maxRetries: 0 } : provider],
      localModels,
      models: { [TEST_TASK]: [`${provider.id}/${model}`] },
      usage,
      logger,
    });
    const started = performance.now();
    try {
      const result = await client.generate({
        task: TEST_TASK,
        messages: [{ role: "user", content: TEST_PROMPT }],
        maxOutputTokens: 16,
      });
      return { ok: true, latencyMs: result.latencyMs, text: result.text };
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      const message =
        error instanceof LlmError ? (error.attempts.at(-1)?.message ?? error.message) : String(error);
      return { ok: false, latencyMs, error: message };
    }
  };
}
