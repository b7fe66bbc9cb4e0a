import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Ajv } from "ajv";
import type { Disposer } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { type ComponentRegistries, PluginSwitches, syncComponents } from "./component-switches.ts";
import type { PluginFolderSettings } from "./config.ts";
import { type PluginManifest, readManifest } from "./manifest.ts";
import { discoverPluginFolders } from "./plugin-discovery.ts";
import { applyConfig, loadVersion, type PluginLoadContext } from "./plugin-loading.ts";
import {
  type DeclaredPlugin,
  markFailed,
  type PluginChangeResult,
  type PluginRecord,
  statusOf,
} from "./plugin-status.ts";
import {
  activateVersion,
  deactivate,
  RETIRE_GRACE_MS,
  recountComponents,
  retire,
  unregisterAll,
} from "./plugin-version.ts";
import { watchPluginFolders } from "./plugin-watcher.ts";
import type { PluginRuntime } from "./runtime.ts";
import { SerialQueue } from "./serial-queue.ts";
import type { PluginStatus } from "./status-types.ts";

export type { PluginChangeResult } from "./plugin-status.ts";
export type { ComponentStatus, PluginState, PluginStatus } from "./status-types.ts";

export interface PluginHostDeps {
  /** The `plugins` section of the current bot config; `applySettings` acts on an edited one. */
  settings: () => PluginFolderSettings;
  registries: ComponentRegistries;
  runtimes: Partial<Record<PluginManifest["runtime"], PluginRuntime>>;
  /** A fresh schema compiler; each load of a plugin gets its own, dropped with that version. */
  createAjv: () => Ajv;
  /** Told when a version is loaded or fails to load (`plugin.loaded`, `plugin.failed`). */
  monitor: Monitor;
  logger: Logger;
  /** Watch the plugin folders and reload edited plugins. Default true. */
  watch?: boolean;
  /** Plugins the config declares (MCP servers), loaded, listed and switched like the folders'. */
  declared?: () => DeclaredPlugin[];
}

/**
 * Finds, loads and runs plugins, and is the control surface for chat commands and the
 * console: `list`, `enable`, `disable`, `reload`, `setConfig`, `refreshTools`, `subscribe`.
 *
 * Operations run one at a time. A plugin that fails is reported (log line + status) and
 * the others run. A reload loads the new version before touching the old one: a broken
 * edit leaves the old version running; otherwise the old version's components are swapped
 * out at once and it is unloaded when its in-flight calls have finished.
 */
export class PluginHost {
  private readonly records = new Map<string, PluginRecord>();
  /** The folders last scanned, to tell whether an edited config moved them. */
  private scannedDirs: string;
  /** Plugin configs replaced for this run (`setConfig`), until the bot config is edited. */
  private configOverrides: Record<string, Record<string, unknown>> = {};
  private readonly switches: PluginSwitches;
  private readonly queue: SerialQueue;
  private readonly loadContext: PluginLoadContext;
  private stopWatching: Disposer = () => {};
  private readonly listeners = new Set<(status: PluginStatus[]) => void>();
  private stopped = false;

  constructor(private readonly deps: PluginHostDeps) {
    const settings = deps.settings();
    this.scannedDirs = JSON.stringify(settings.dirs);
    this.switches = new PluginSwitches(settings.disabled);
    this.queue = new SerialQueue((error) =>
      deps.logger.error({ err: error }, "plugin host operation failed"),
    );
    this.loadContext = {
      runtimes: deps.runtimes,
      createAjv: deps.createAjv,
      logger: deps.logger,
      configOf: (id) => this.configOf(id),
      componentsChanged: (record) => this.replaceComponents(record),
      statusChanged: () => this.changed(),
    };
  }
  /**
   * Loads every plugin found, then starts watching the folders. Stdio plugins go on
   * activating in the background, all at once (see `activated`).
   */
  start(): Promise<void> {
    return this.queue.run(async () => {
      await this.rescan(false);
      await this.syncDeclared();
      this.watch();
    });
  }

  /**
   * Settles once the operations queued so far are done and every loaded plugin's first
   * activation attempt is over, whatever its outcome.
   */
  async activated(): Promise<void> {
    await this.queue.run(async () => {});
    await Promise.all([...this.records.values()].map((record) => record.active?.loaded.activation));
  }

  /**
   * Unloads every plugin and stops watching. Turns have ended by now; a call still running
   * (a tool past its timeout) is not waited for.
   */
  stop(): Promise<void> {
    this.stopped = true;
    this.stopWatching();
    // Concurrently: a stdio plugin may take its whole deactivation grace to exit.
    return this.queue.run(async () => {
      await Promise.all([...this.records.values()].map((record) => deactivate(record, this.deps.logger, 0)));
    });
  }

  list(): PluginStatus[] {
    return [...this.records.values()].map((record) => statusOf(record));
  }

  get(id: string): PluginStatus | undefined {
    const record = this.byId(id);
    return record && statusOf(record);
  }

  /** Follows every change of any plugin's status (the console's live view). */
  subscribe(listener: (status: PluginStatus[]) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Enables a plugin ("id") or one component ("id.component") at run time. */
  enable(ref: string): Promise<PluginChangeResult> {
    return this.queue.run(() => this.setEnabled(ref, true));
  }

  /** Disables a plugin or one component at run time; a disabled plugin is unloaded. */
  disable(ref: string): Promise<PluginChangeResult> {
    return this.queue.run(() => this.setEnabled(ref, false));
  }

  /** Loads the plugin again from disk. */
  reload(id: string): Promise<PluginChangeResult> {
    return this.queue.run(async () => {
      const record = this.byId(id);
      if (!record) return { ok: false, error: `no plugin "${id}"` };
      await this.reloadRecord(record);
      return this.result(record);
    });
  }

  /**
   * Loads, reloads or removes the plugin of one folder at once (an install or uninstall
   * just changed it), as its watcher would a moment later.
   */
  loadFolder(folder: string): Promise<void> {
    return this.queue.run(() => this.folderChanged(resolve(folder)));
  }

  /** Replaces a plugin's config (validated against its schema) for this run. */
  setConfig(id: string, config: Record<string, unknown>): Promise<PluginChangeResult> {
    return this.queue.run(async () => {
      const record = this.byId(id);
      if (!record) return { ok: false, error: `no plugin "${id}"` };
      this.configOverrides = { ...this.configOverrides, [id]: config };
      const problem = await applyConfig(record, this.loadContext);
      return problem ? { ok: false, error: problem } : this.result(record);
    });
  }

  /**
   * Rescans the plugin folders and reloads every plugin (function-declaration `refresh_tools`); what
   * plugins reach as `bot.refreshTools()`.
   */
  refreshTools(): Promise<void> {
    return this.queue.run(() => this.rescan(true));
  }

  /** Applies an edited bot config: folders, disabled list and plugin configs. */
  applySettings(): Promise<void> {
    return this.queue.run(async () => {
      const next = this.deps.settings();
      const dirsChanged = JSON.stringify(next.dirs) !== this.scannedDirs;
      this.scannedDirs = JSON.stringify(next.dirs);
      this.configOverrides = {};
      this.switches.reset(next.disabled);
      if (dirsChanged) {
        await this.rescan(false);
        this.watch();
      }
      await this.syncDeclared();
      for (const record of this.records.values()) {
        await this.applyEnabledState(record);
        if (record.active) await applyConfig(record, this.loadContext);
      }
    });
  }

  // ——— operations (run inside the queue) ———

  private async rescan(reloadExisting: boolean): Promise<void> {
    const folders = new Set(await discoverPluginFolders(this.dirs()));
    for (const record of [...this.records.values()]) {
      if (!record.declared && !folders.has(record.dir)) await this.remove(record);
    }
    for (const folder of folders) {
      const record = this.records.get(folder);
      if (!record) await this.add(folder);
      else if (reloadExisting) await this.reloadRecord(record);
    }
  }

  /** Loads the declared plugins that are new or changed, removes those no longer declared. */
  private async syncDeclared(): Promise<void> {
    const declared = new Map((this.deps.declared?.() ?? []).map((plugin) => [plugin.manifest.id, plugin]));
    for (const record of [...this.records.values()]) {
      if (record.declared && !declared.has(record.id)) await this.remove(record);
    }
    for (const plugin of declared.values()) {
      const key = declaredKey(plugin.manifest.id);
      const record = this.records.get(key);
      if (record?.declared?.revision === plugin.revision) continue;
      const next: PluginRecord = record ?? { dir: plugin.dir, id: plugin.manifest.id, state: "failed" };
      next.declared = plugin;
      next.dir = plugin.dir;
      this.records.set(key, next);
      await this.reloadRecord(next);
    }
  }

  private async folderChanged(folder: string): Promise<void> {
    const record = this.records.get(folder);
    if (!existsSync(join(folder, "plugin.json"))) {
      if (record) await this.remove(record);
      return;
    }
    if (!record) await this.add(folder);
    else await this.reloadRecord(record);
  }

  private async add(folder: string): Promise<void> {
    const record: PluginRecord = { dir: folder, id: basename(folder), state: "failed" };
    this.records.set(folder, record);
    await this.reloadRecord(record);
  }

  private async remove(record: PluginRecord): Promise<void> {
    await deactivate(record, this.deps.logger);
    this.records.delete(record.declared ? declaredKey(record.id) : record.dir);
    this.deps.logger.info({ plugin: record.id }, "plugin removed");
    this.changed();
  }

  /** Reads the manifest again and loads a new version (or leaves the record disabled / failed). */
  private async reloadRecord(record: PluginRecord): Promise<void> {
    const ajv = this.deps.createAjv();
    const read = record.declared
      ? { ok: true as const, manifest: record.declared.manifest }
      : await readManifest(record.dir, ajv);
    if (!read.ok) {
      this.fail(record, read.problems.join("; "), read.id);
      return;
    }
    const manifest = read.manifest;
    const holder = this.byId(manifest.id);
    if (holder && holder !== record) {
      this.fail(record, `id "${manifest.id}" is already used by the plugin in ${holder.dir}`, manifest.id);
      return;
    }
    record.id = manifest.id;
    if (!this.wanted(record)) {
      record.manifest = manifest;
      await deactivate(record, this.deps.logger);
      record.state = "disabled";
      this.changed();
      return;
    }
    try {
      const loaded = await loadVersion(record, manifest, ajv, this.loadContext);
      const previous = record.active;
      if (previous) unregisterAll(previous);
      record.manifest = manifest;
      record.description = loaded.description;
      record.active = activateVersion(loaded);
      record.state = "enabled";
      record.error = undefined;
      record.errorAt = undefined;
      this.syncComponents(record);
      if (previous) void retire(record.id, previous, RETIRE_GRACE_MS, this.deps.logger);
      const loadedData = {
        plugin: manifest.id,
        version: manifest.version,
        components: record.active.components.length,
      };
      this.deps.logger.info(loadedData, previous ? "plugin reloaded" : "plugin loaded");
      this.deps.monitor.emit({ type: "plugin.loaded", data: { ...loadedData, replaced: Boolean(previous) } });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (record.active) {
        record.error = message;
        record.errorAt = Date.now();
        this.deps.logger.error(
          { plugin: manifest.id, error: message },
          `plugin ${manifest.id} failed to reload; the previous version keeps running: ${message}`,
        );
        this.deps.monitor.emit({
          type: "plugin.failed",
          data: { plugin: manifest.id, error: message, previousKeepsRunning: true },
        });
      } else {
        record.manifest = manifest;
        this.fail(record, message, manifest.id);
        return;
      }
    }
    this.changed();
  }

  private async setEnabled(ref: string, enabled: boolean): Promise<PluginChangeResult> {
    const dot = ref.indexOf(".");
    const id = dot === -1 ? ref : ref.slice(0, dot);
    const record = this.byId(id);
    if (!record) return { ok: false, error: `no plugin "${id}"` };
    if (dot !== -1) {
      const component = record.active?.components.find((entry) => entry.component.fullName === ref);
      if (record.active && !component)
        return { ok: false, error: `plugin ${id} has no component "${ref.slice(dot + 1)}"` };
    }
    this.switches.set(ref, enabled, dot !== -1);
    await this.applyEnabledState(record);
    this.deps.logger.info({ plugin: id, ref }, enabled ? "enabled" : "disabled");
    return this.result(record);
  }

  private async applyEnabledState(record: PluginRecord): Promise<void> {
    const wanted = this.wanted(record);
    if (wanted && record.state === "disabled") await this.reloadRecord(record);
    else if (!wanted && record.state !== "disabled") {
      await deactivate(record, this.deps.logger);
      record.state = "disabled";
      record.error = undefined;
      this.changed();
    } else if (record.active) {
      this.syncComponents(record);
      this.changed();
    }
  }

  /** The running version declared other components (synchronous, so no turn sees a half-swapped set). */
  private replaceComponents(record: PluginRecord): void {
    if (!record.active) return;
    recountComponents(record.active);
    this.syncComponents(record);
    this.changed();
  }

  private syncComponents(record: PluginRecord): void {
    syncComponents(record, this.switches, this.deps.registries, this.deps.logger);
  }

  // ——— helpers ———

  private fail(record: PluginRecord, message: string, id: string | undefined): void {
    markFailed(record, message, id, this.deps.logger);
    this.deps.monitor.emit({
      type: "plugin.failed",
      data: { plugin: record.id, error: message, previousKeepsRunning: record.active !== undefined },
    });
    this.changed();
  }

  /** Whether the plugin should run: not switched off, nor (a declared one) off in its own settings. */
  private wanted(record: PluginRecord): boolean {
    return this.switches.pluginEnabled(record.id) && record.declared?.enabled !== false;
  }

  private byId(id: string): PluginRecord | undefined {
    for (const record of this.records.values()) if (record.id === id) return record;
    return undefined;
  }

  private dirs(): string[] {
    return this.deps.settings().dirs.map((dir) => resolve(dir));
  }

  private configOf(id: string): Record<string, unknown> | undefined {
    return this.configOverrides[id] ?? this.deps.settings().config[id];
  }

  private watch(): void {
    this.stopWatching();
    if (this.deps.watch === false || this.stopped) return;
    this.stopWatching = watchPluginFolders(
      this.dirs(),
      (folder) => void this.queue.run(() => this.folderChanged(folder)),
      this.deps.logger,
    );
  }

  private result(record: PluginRecord): PluginChangeResult {
    return { ok: true, status: statusOf(record) };
  }

  private changed(): void {
    if (this.listeners.size === 0) return;
    const status = this.list();
    for (const listener of this.listeners) listener(status);
  }
}

/** Declared plugins' records are kept by id: several may share a command line. */
function declaredKey(id: string): string {
  return `declared:${id}`;
}
