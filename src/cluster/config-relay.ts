import type { Logger } from "../log/logger.ts";
import type { PluginChangeResult } from "../plugins/plugin-host.ts";
import type { ClusterChannel } from "./channel.ts";

/** What one instance hands the others so that all of them run alike. */
export type ConfigNews =
  /**
   * A config its console just saved (config page, plugin page, first-run setup), as an edit in
   * the console's own form: the secrets it kept are hidden, so they never cross Redis.
   */
  | { edit: string }
  /** A plugin or component switched at run time by the `/plugins` command. */
  | { plugin: string; enabled: boolean };

/** How an instance takes the others' news in. */
export interface ConfigAdopter {
  /** Adopts an edit saved on another instance: through the console's checks, against this instance's file. */
  edit(text: string): void;
  /** Switches a plugin or component here too. */
  plugin(ref: string, enabled: boolean): Promise<PluginChangeResult>;
}

/**
 * Config edits and plugin switches made on one instance, handed to every other one. Each
 * instance takes an edit in as its console would (its own kept secrets, its own `${VAR}`
 * expansion). Adopting never publishes again, so news does not echo between instances.
 */
export class ConfigRelay {
  constructor(
    private readonly channel: ClusterChannel<ConfigNews>,
    private readonly adopt: ConfigAdopter,
    private readonly logger: Logger,
  ) {}

  start(): Promise<void> {
    return this.channel.listen((news, from) => {
      if ("edit" in news) {
        this.logger.info({ from }, "config saved on another instance; adopting it");
        this.adopt.edit(news.edit);
        return;
      }
      const { plugin, enabled } = news;
      const failed = (error: unknown) =>
        this.logger.warn(
          { from, plugin, err: error },
          `a plugin switched on another instance could not be ${enabled ? "enabled" : "disabled"} here`,
        );
      this.adopt.plugin(plugin, enabled).then((result) => {
        if (!result.ok) failed(result.error);
      }, failed);
    });
  }

  publish(news: ConfigNews): void {
    this.channel
      .publish(news)
      .catch((error: unknown) =>
        this.logger.error(
          { err: error },
          "could not hand a config change to the other instances: they keep theirs until edited",
        ),
      );
  }
}
