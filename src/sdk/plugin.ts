import { ATTACH, PLUGIN_BRAND, type PluginBinding } from "./sdk-symbols.ts";
import type { PluginLogger } from "./types.ts";

/**
 * Base class of a class-style plugin: default-export a subclass from the entry module and
 * decorate its methods with `@Tool`, `@Command`, `@Hook`, `@Enricher` or
 * `@ReplyExtension`. The host creates
 * one instance per load; `config` always holds the current validated config.
 */
export class Plugin<Config extends object = Record<string, unknown>> {
  static readonly [PLUGIN_BRAND] = true;
  #binding: PluginBinding | undefined;

  [ATTACH](binding: PluginBinding): void {
    this.#binding = binding;
  }

  /** The plugin id from plugin.json. */
  get id(): string {
    return this.#bound().id;
  }

  /** This plugin's config (plugin.json `config` schema, defaults filled). */
  get config(): Config {
    return this.#bound().config() as Config;
  }

  get logger(): PluginLogger {
    return this.#bound().logger;
  }

  /** Called once after loading, before any handler runs. A throw fails the load. */
  onLoad(): void | Promise<void> {}

  /** Called when the plugin is unloaded, disabled or replaced by a reload. */
  onUnload(): void | Promise<void> {}

  /** Called when `plugins.config.<id>` changed and the new config passed validation. */
  onConfigChanged(_config: Config): void | Promise<void> {}

  #bound(): PluginBinding {
    if (!this.#binding) throw new Error("the plugin is not loaded by a Tsumugi host yet");
    return this.#binding;
  }
}
