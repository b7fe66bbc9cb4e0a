import { type FSWatcher, watch } from "node:fs";
import { resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { Logger } from "../log/logger.ts";
import { loadPromptTemplates, type PromptSettings, type PromptTemplates } from "./templates.ts";

/** Editors save in several steps (truncate, write, rename); events closer than this are one edit. */
const DEBOUNCE_MS = 150;

/**
 * The templates in use. They are loaded again when the `prompts` keys change (config reload)
 * and when a file in `prompts.dir` changes, so an edit reaches the next turn. An edit that
 * does not load is logged with its problems and the previous templates stay in use, as with
 * a config edit.
 */
export class PromptLibrary {
  private current: PromptTemplates;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `baseDir` is what `prompts.dir` is relative to: the config file's folder. Throws on templates that do not load. */
  constructor(
    private settings: PromptSettings,
    private readonly baseDir: string,
    private readonly logger: Logger,
  ) {
    const load = loadPromptTemplates(settings, baseDir);
    if (!load.ok) throw new Error(`prompt templates do not load: ${load.problems.join("; ")}`);
    this.current = load.templates;
    this.watchFolder();
  }

  templates(): PromptTemplates {
    return this.current;
  }

  /** The `prompts` keys of a reloaded config. */
  apply(settings: PromptSettings): void {
    if (isDeepStrictEqual(settings, this.settings)) return;
    this.settings = settings;
    this.reload();
    this.watchFolder();
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  private reload(): void {
    const load = loadPromptTemplates(this.settings, this.baseDir);
    if (!load.ok) {
      this.logger.warn(
        { problems: load.problems },
        `prompt template edit not applied, keeping the previous templates: ${load.problems.join("; ")}`,
      );
      return;
    }
    this.current = load.templates;
    this.logger.info(
      { dir: this.settings.dir, language: this.settings.language },
      "prompt templates reloaded",
    );
  }

  private watchFolder(): void {
    this.close();
    if (this.settings.dir === undefined) return;
    const folder = resolve(this.baseDir, this.settings.dir);
    try {
      this.watcher = watch(folder, () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.reload(), DEBOUNCE_MS);
      });
    } catch (error) {
      this.logger.warn(
        { folder, err: error },
        "cannot watch prompts.dir; template edits there apply after a restart",
      );
      return;
    }
    this.watcher.on("error", (error) => {
      this.logger.error(
        { folder, err: error },
        "prompts.dir watch failed; template edits there apply after a restart",
      );
    });
  }
}
