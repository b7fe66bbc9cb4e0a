import type { LlamaRuntime } from "../llm/llama-cpp/llama-runtime.ts";
import { LLAMA_RUNTIME_VERSION } from "../llm/llama-cpp/llama-runtime.ts";
import type { LocalModelStatus } from "../llm/llama-cpp/local-model.ts";
import type { Logger } from "../log/logger.ts";
import { type CatalogModel, downloadOrigin, mirroredUrl } from "./catalog.ts";
import { downloadFile } from "./download-file.ts";
import type { InstalledModel, ModelFiles } from "./model-files.ts";
import type { TransferProgress } from "./transfer-meter.ts";

export interface RuntimeState {
  version: string;
  installed: boolean;
  installing: boolean;
  /** Why the last install failed (npm's own words). */
  error?: string;
  /** The install's latest line of output while it runs. */
  line?: string;
}

export interface DownloadState {
  name: string;
  state: "downloading" | "done" | "failed";
  progress?: TransferProgress;
  error?: string;
}

/** Everything the console shows about local models, in one JSON-ready object. */
export interface LocalModelSnapshot {
  runtime: RuntimeState;
  /** Where downloads come from: Hugging Face or the mirror of `llm.modelMirror`. */
  downloadsFrom: string;
  recommended: CatalogModel[];
  installed: InstalledModel[];
  downloads: DownloadState[];
  /** Models of llama-cpp providers: loaded or not, memory, tokens/s. */
  models: LocalModelStatus[];
}

export type LocalModelEvent =
  | { type: "runtime"; runtime: RuntimeState; line?: string }
  | { type: "download"; download: DownloadState };

export interface LocalModelServiceDeps {
  runtime: LlamaRuntime;
  files: ModelFiles;
  /** Statuses of the models in use (the app's `LocalModels.statuses`). */
  statuses: () => LocalModelStatus[];
  /** The mirror base URL downloads use (`llm.modelMirror`, HF_ENDPOINT); empty: Hugging Face. */
  mirror?: () => string;
  logger: Logger;
}

/**
 * Local models for the console's first-run page and the `model` CLI: install the runtime,
 * download a recommended model with progress (resumable, checksum-verified), list, remove,
 * and the status of the loaded ones. Nothing here touches the network unless asked to.
 */
export class LocalModelService {
  private runtimeInstall: Promise<void> | undefined;
  private runtimeError: string | undefined;
  private runtimeLine: string | undefined;
  private readonly pulls = new Map<string, Promise<InstalledModel>>();
  private readonly downloadStates = new Map<string, DownloadState>();
  private readonly listeners = new Set<(event: LocalModelEvent) => void>();

  constructor(private readonly deps: LocalModelServiceDeps) {}

  snapshot(): LocalModelSnapshot {
    return {
      runtime: this.runtimeState(),
      downloadsFrom: downloadOrigin(this.mirror()),
      recommended: this.deps.files.catalog,
      installed: this.deps.files.list(),
      downloads: [...this.downloadStates.values()],
      models: this.deps.statuses(),
    };
  }

  /** Live runtime install lines and download progress; returns the disposer. */
  subscribe(listener: (event: LocalModelEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  runtimeState(): RuntimeState {
    return {
      version: LLAMA_RUNTIME_VERSION,
      installed: this.deps.runtime.installed(),
      installing: this.runtimeInstall !== undefined,
      ...(this.runtimeError ? { error: this.runtimeError } : {}),
      ...(this.runtimeInstall !== undefined && this.runtimeLine ? { line: this.runtimeLine } : {}),
    };
  }

  private mirror(): string {
    return this.deps.mirror?.() ?? "";
  }

  /** Installs node-llama-cpp into the data directory unless it is there; one install at a time. */
  installRuntime(): Promise<void> {
    if (this.deps.runtime.installed()) return Promise.resolve();
    this.runtimeInstall ??= (async () => {
      this.runtimeError = undefined;
      this.runtimeLine = undefined;
      this.deps.logger.info({ dir: this.deps.runtime.dir }, "installing the local model runtime");
      try {
        await this.deps.runtime.install((line) => {
          this.runtimeLine = line;
          this.publish({ type: "runtime", runtime: this.runtimeState(), line });
        });
        this.deps.logger.info("local model runtime installed");
      } catch (error) {
        this.runtimeError = error instanceof Error ? error.message : String(error);
        this.deps.logger.error(`local model runtime not installed: ${this.runtimeError}`);
        throw error;
      } finally {
        this.runtimeInstall = undefined;
        this.publish({ type: "runtime", runtime: this.runtimeState() });
      }
    })();
    return this.runtimeInstall;
  }

  /**
   * Makes a recommended model ready: the runtime installed, the file downloaded (resuming a
   * partial one) and checked. Asking again while it runs joins the same download.
   */
  pull(name: string, signal?: AbortSignal): Promise<InstalledModel> {
    let pull = this.pulls.get(name);
    if (!pull) {
      pull = this.download(name, signal).finally(() => this.pulls.delete(name));
      this.pulls.set(name, pull);
    }
    return pull;
  }

  remove(name: string): boolean {
    this.downloadStates.delete(name);
    return this.deps.files.remove(name);
  }

  private async download(name: string, signal?: AbortSignal): Promise<InstalledModel> {
    const { files, logger } = this.deps;
    const { path, entry } = files.resolve(name);
    if (!entry) throw new Error(`"${name}" is not a model that can be downloaded`);
    await this.installRuntime();
    const state: DownloadState = { name, state: "downloading" };
    this.setDownload(state);
    try {
      files.verify(name);
      logger.info({ model: name, path }, "local model already downloaded");
    } catch {
      const url = mirroredUrl(entry.url, this.mirror());
      logger.info({ model: name, url, path }, "downloading a local model");
      try {
        await downloadFile({
          url,
          path,
          sizeBytes: entry.sizeBytes,
          sha256: entry.sha256,
          signal,
          onProgress: (progress) => this.setDownload({ name, state: "downloading", progress }),
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.setDownload({ ...this.downloadStates.get(name), name, state: "failed", error: message });
        logger.error({ model: name }, `model download failed: ${message}`);
        throw error;
      }
    }
    this.setDownload({ ...this.downloadStates.get(name), name, state: "done" });
    return files.list().find((model) => model.name === name)!;
  }

  private setDownload(state: DownloadState): void {
    this.downloadStates.set(state.name, state);
    this.publish({ type: "download", download: state });
  }

  private publish(event: LocalModelEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.deps.logger.warn({ err: error }, "local model listener failed");
      }
    }
  }
}
