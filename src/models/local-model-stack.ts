import { join } from "node:path";
import { LlamaRuntime } from "../llm/llama-cpp/llama-runtime.ts";
import { LocalModels } from "../llm/llama-cpp/local-models.ts";
import type { Logger } from "../log/logger.ts";
import { type CatalogModel, RECOMMENDED_MODELS } from "./catalog.ts";
import { LocalModelService } from "./local-model-service.ts";
import { ModelFiles } from "./model-files.ts";

export interface LocalModelStack {
  /** The llama-cpp providers' models, for the LLM client. */
  models: LocalModels;
  /** Runtime install, downloads and statuses, for the console and the CLI. */
  service: LocalModelService;
}

/** Local models under a data directory: `runtime/` holds node-llama-cpp, `models/` the GGUF files. */
export function createLocalModelStack(
  dataDir: string,
  logger: Logger,
  catalog: CatalogModel[] = RECOMMENDED_MODELS,
  mirror: () => string = () => "",
): LocalModelStack {
  const runtime = new LlamaRuntime(join(dataDir, "runtime"));
  const files = new ModelFiles(join(dataDir, "models"), catalog);
  const models = new LocalModels({ runtime, modelPath: (reference) => files.verify(reference), logger });
  const service = new LocalModelService({
    runtime,
    files,
    statuses: () => models.statuses(),
    mirror,
    logger,
  });
  return { models, service };
}
