import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Ajv } from "ajv";
import type { Logger } from "../log/logger.ts";
import type { JsonSchema } from "../sdk/types.ts";
import type { ComponentRegistry } from "./component-registry.ts";
import type { Component, ComponentKind, Disposer } from "./components.ts";
import type { PluginSettings } from "./config.ts";
import { type PluginManifest, readManifest } from "./manifest.ts";
import { validatePluginConfig } from "./plugin-config.ts";
import { discoverPluginFolders } from "./plugin-discovery.ts";
import { watchPluginFolders } from "./plugin-watcher.ts";
import type { LoadedPlugin, PluginRuntime, RuntimeDetails } from "./runtime.ts";

export type PluginState = "enabled" | "disabled" | "failed";

export interface ComponentStatus {
  kind: ComponentKind;
  name: string;
  fullName: string;
  description: string;
  /** Registered and in use (where its scope applies). */
  enabled: boolean;
  error?: string;
}

export interface PluginStatus extends RuntimeDetails {
  /** The manifest id; the folder name when the manifest could not be read. */
  id: string;
  dir: string;
  name: string;
  version: string;
  description: string;
  runtime: string;
  state: PluginState;
  /** The last error (a failed load, a broken edit, a rejected config), kept until the next success. */
  error?: string;
  errorAt?: number;
  loadedAt?: number;
  components: ComponentStatus[];
  config?: Record<string, unknown>;
  configSchema?: JsonSchema;
}

export type PluginChangeResult = { ok: true; status: PluginStatus } | { ok: false; error: string };

export interface PluginHostDeps {
  /** The `plugins` section of the current bot config; `applySettings` acts on an edited one. */
  settings: () => PluginSettings;
  registries: { [K in ComponentKind]: ComponentRegistry<Extract<Component, { kind: K }>> };
  runtimes: Partial<Record<PluginManifest["runtime"], PluginRuntime>>;
  ajv: Ajv;
  logger: Logger;
  /** Watch the plugin folders and reload edited plugins. Default true. */
  watch?: boolean;
}

/** One loaded version of a plugin with its registrations and the calls running in it. */
interface ActiveVersion {
  loaded: LoadedPlugin;
  /** Components with their invoke counted, and whether they start enabled. */
  components: Array<{ component: Component; declaredEnabled: boolean }>;
  registrations: Map<string, Disposer>;
  componentErrors: Map<string, string>;
  inflight: number;
  drained: (() => void) | undefined;
  loadedAt: number;
}

interface PluginRecord {
  dir: string;
  id: string;
  manifest?: PluginManifest;
  description?: string;
  state: PluginState;
  error?: string;
  errorAt?: number;
  config?: Record<string, unknown>;
  active?: ActiveVersion;
}

/** How long an old version may keep running calls after a reload before it is unloaded anyway. */
const RETIRE_GRACE_MS = 60_000;

/**
 * Finds, loads and runs plugins, and is the control surface for chat commands and the
 * console: `list`, `enable`, `disable`, `reload`, `setConfig`, `refresh`, `subscribe`.
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
  private disabled: Set<string>;
  /** Components switched on at run time although they declare `enabled: false`. */
  private readonly enabledOverrides = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();
  private stopWatching: Disposer = () => {};
  private readonly listeners = new Set<(status: PluginStatus[]) => void>();
  private stopped = false;

  constructor(private readonly deps: PluginHostDeps) {
    const settings = deps.settings();
    this.scannedDirs = JSON.stringify(settings.dirs);
    this.disabled = new Set(settings.disabled);
  }

  /**
   * Loads every plugin found, then starts watching the folders. Stdio plugins go on
   * activating in the background, all at once (see `activated`).
   */
  start(): Promise<void> {
    return this.serial(async () => {
      await this.rescan(false);
      this.watch();
    });
  }

  /**
   * Settles once the operations queued so far are done and every loaded plugin's first
   * activation attempt is over, whatever its outcome.
   */
  async activated(): Promise<void> {
    await this.serial(async () => {});
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
    return this.serial(async () => {
      await Promise.all([...this.records.values()].map((record) => this.deactivate(record, 0)));
    });
  }

  list(): PluginStatus[] {
    return [...this.records.values()].map((record) => this.statusOf(record));
  }

  get(id: string): PluginStatus | undefined {
    const record = this.byId(id);
    return record && this.statusOf(record);
  }

  /** Follows every change of any plugin's status (the console's live view). */
  subscribe(listener: (status: PluginStatus[]) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Enables a plugin ("id") or one component ("id.component") at run time. */
  enable(ref: string): Promise<PluginChangeResult> {
    return this.serial(() => this.setEnabled(ref, true));
  }

  /** Disables a plugin or one component at run time; a disabled plugin is unloaded. */
  disable(ref: string): Promise<PluginChangeResult> {
    return this.serial(() => this.setEnabled(ref, false));
  }

  /** Loads the plugin again from disk. */
  reload(id: string): Promise<PluginChangeResult> {
    return this.serial(async () => {
      const record = this.byId(id);
      if (!record) return { ok: false, error: `no plugin "${id}"` };
      await this.reloadRecord(record);
      return this.result(record);
    });
  }

  /** Replaces a plugin's config (validated against its schema) for this run. */
  setConfig(id: string, config: Record<string, unknown>): Promise<PluginChangeResult> {
    return this.serial(async () => {
      const record = this.byId(id);
      if (!record) return { ok: false, error: `no plugin "${id}"` };
      this.configOverrides = { ...this.configOverrides, [id]: config };
      const problem = await this.applyConfig(record);
      return problem ? { ok: false, error: problem } : this.result(record);
    });
  }

  /** Rescans the plugin folders and reloads every plugin (seed 004's refresh_tools). */
  refresh(): Promise<void> {
    return this.serial(() => this.rescan(true));
  }

  /** Applies an edited bot config: folders, disabled list and plugin configs. */
  applySettings(): Promise<void> {
    return this.serial(async () => {
      const next = this.deps.settings();
      const dirsChanged = JSON.stringify(next.dirs) !== this.scannedDirs;
      this.scannedDirs = JSON.stringify(next.dirs);
      this.configOverrides = {};
      this.disabled = new Set(next.disabled);
      this.enabledOverrides.clear();
      if (dirsChanged) {
        await this.rescan(false);
        this.watch();
      }
      for (const record of this.records.values()) {
        await this.applyEnabledState(record);
        if (record.active) await this.applyConfig(record);
      }
    });
  }

  // ——— operations (run inside `serial`) ———

  private async rescan(reloadExisting: boolean): Promise<void> {
    const folders = new Set(await discoverPluginFolders(this.dirs()));
    for (const record of [...this.records.values()]) {
      if (!folders.has(record.dir)) await this.remove(record);
    }
    for (const folder of folders) {
      const record = this.records.get(folder);
      if (!record) await this.add(folder);
      else if (reloadExisting) await this.reloadRecord(record);
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
    await this.deactivate(record);
    this.records.delete(record.dir);
    this.deps.logger.info({ plugin: record.id }, "plugin removed");
    this.changed();
  }

  /** Reads the manifest again and loads a new version (or leaves the record disabled / failed). */
  private async reloadRecord(record: PluginRecord): Promise<void> {
    const read = await readManifest(record.dir, this.deps.ajv);
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
    if (!this.pluginEnabled(manifest.id)) {
      record.manifest = manifest;
      await this.deactivate(record);
      record.state = "disabled";
      this.changed();
      return;
    }
    try {
      record.config = this.validConfig(manifest, record.id);
      // Set once the load returns: a runtime's change reports count only while its version is the active one.
      let current: LoadedPlugin | undefined;
      const loaded = await this.runtime(manifest).load({
        manifest,
        dir: record.dir,
        config: () => record.config ?? {},
        logger: this.deps.logger.child({ plugin: manifest.id }),
        refreshTools: () => this.refresh(),
        ajv: this.deps.ajv,
        componentsChanged: () => {
          if (current && record.active?.loaded === current) this.replaceComponents(record, record.active);
        },
        statusChanged: () => {
          if (current && record.active?.loaded === current) this.changed();
        },
        replacing: record.active !== undefined,
      });
      current = loaded;
      const previous = record.active;
      if (previous) this.unregisterAll(previous);
      record.manifest = manifest;
      record.description = loaded.description;
      record.active = this.activate(loaded);
      record.state = "enabled";
      record.error = undefined;
      record.errorAt = undefined;
      this.syncComponents(record);
      if (previous) void this.retire(record.id, previous, RETIRE_GRACE_MS);
      this.deps.logger.info(
        { plugin: manifest.id, version: manifest.version, components: record.active.components.length },
        previous ? "plugin reloaded" : "plugin loaded",
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (record.active) {
        record.error = message;
        record.errorAt = Date.now();
        this.deps.logger.error(
          { plugin: manifest.id, error: message },
          `plugin ${manifest.id} failed to reload; the previous version keeps running: ${message}`,
        );
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
    if (enabled) {
      this.disabled.delete(ref);
      if (dot !== -1) this.enabledOverrides.add(ref);
    } else {
      this.disabled.add(ref);
      this.enabledOverrides.delete(ref);
    }
    await this.applyEnabledState(record);
    this.deps.logger.info({ plugin: id, ref }, enabled ? "enabled" : "disabled");
    return this.result(record);
  }

  private async applyEnabledState(record: PluginRecord): Promise<void> {
    const wanted = this.pluginEnabled(record.id);
    if (wanted && record.state === "disabled") await this.reloadRecord(record);
    else if (!wanted && record.state !== "disabled") {
      await this.deactivate(record);
      record.state = "disabled";
      record.error = undefined;
      this.changed();
    } else if (record.active) {
      this.syncComponents(record);
      this.changed();
    }
  }

  /** Validates the plugin's current config and hands a changed one to the running version. */
  private async applyConfig(record: PluginRecord): Promise<string | undefined> {
    if (!record.manifest) return undefined;
    const result = validatePluginConfig(this.deps.ajv, record.manifest.config, this.configOf(record.id));
    if (!result.ok) {
      const problem = `config rejected, the previous config stays: ${result.problems.join("; ")}`;
      record.error = problem;
      record.errorAt = Date.now();
      this.deps.logger.warn({ plugin: record.id }, `plugin ${record.id} ${problem}`);
      this.changed();
      return problem;
    }
    if (JSON.stringify(result.config) === JSON.stringify(record.config)) return undefined;
    record.config = result.config;
    try {
      await record.active?.loaded.configChanged(result.config);
    } catch (error) {
      this.deps.logger.warn({ plugin: record.id, err: error }, "plugin onConfigChanged failed");
    }
    this.deps.logger.info({ plugin: record.id }, "plugin config changed");
    this.changed();
    return undefined;
  }

  // ——— versions and registrations ———

  private activate(loaded: LoadedPlugin): ActiveVersion {
    const version: ActiveVersion = {
      loaded,
      components: [],
      registrations: new Map(),
      componentErrors: new Map(),
      inflight: 0,
      drained: undefined,
      loadedAt: Date.now(),
    };
    version.components = countedComponents(loaded, version);
    return version;
  }

  /** The running version declared other components (synchronous, so no turn sees a half-swapped set). */
  private replaceComponents(record: PluginRecord, version: ActiveVersion): void {
    this.unregisterAll(version);
    version.componentErrors.clear();
    version.components = countedComponents(version.loaded, version);
    this.syncComponents(record);
    this.changed();
  }

  /** Registers the components that should be on, removes the ones that should be off. */
  private syncComponents(record: PluginRecord): void {
    const version = record.active;
    if (!version) return;
    for (const { component, declaredEnabled } of version.components) {
      const name = component.fullName;
      const wanted = !this.disabled.has(name) && (declaredEnabled || this.enabledOverrides.has(name));
      const registered = version.registrations.get(name);
      if (wanted && !registered) {
        try {
          const registry = this.deps.registries[component.kind] as ComponentRegistry<Component>;
          version.registrations.set(name, registry.add(component));
          version.componentErrors.delete(name);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          version.componentErrors.set(name, message);
          this.deps.logger.error(
            { plugin: record.id, component: name },
            `component not registered: ${message}`,
          );
        }
      } else if (!wanted && registered) {
        registered();
        version.registrations.delete(name);
      }
    }
  }

  private unregisterAll(version: ActiveVersion): void {
    for (const dispose of version.registrations.values()) dispose();
    version.registrations.clear();
  }

  /**
   * Takes the running version out of the registries at once. Given a grace time, it is also
   * unloaded before this returns, waiting that long at most for its calls; otherwise it is
   * unloaded in the background once its calls are done.
   */
  private async deactivate(record: PluginRecord, graceMs?: number): Promise<void> {
    const version = record.active;
    if (!version) return;
    this.unregisterAll(version);
    record.active = undefined;
    if (graceMs === undefined) void this.retire(record.id, version, RETIRE_GRACE_MS);
    else await this.retire(record.id, version, graceMs);
  }

  /** Unloads an old version once its in-flight calls are done (or the grace time is over). */
  private async retire(id: string, version: ActiveVersion, graceMs: number): Promise<void> {
    if (version.inflight > 0 && graceMs > 0) {
      await new Promise<void>((done) => {
        const timer = setTimeout(done, graceMs);
        timer.unref();
        version.drained = () => {
          clearTimeout(timer);
          done();
        };
      });
    }
    try {
      await version.loaded.unload();
    } catch (error) {
      this.deps.logger.warn({ plugin: id, err: error }, "plugin unload failed");
    }
  }

  // ——— helpers ———

  private fail(record: PluginRecord, message: string, id: string | undefined): void {
    if (id) record.id = id;
    record.state = "failed";
    record.error = message;
    record.errorAt = Date.now();
    this.deps.logger.error(
      { plugin: record.id, dir: record.dir, error: message },
      `plugin ${record.id} failed to load: ${message}`,
    );
    this.changed();
  }

  private validConfig(manifest: PluginManifest, id: string): Record<string, unknown> {
    const result = validatePluginConfig(this.deps.ajv, manifest.config, this.configOf(id));
    if (!result.ok) throw new Error(`plugins.config.${id} is invalid: ${result.problems.join("; ")}`);
    return result.config;
  }

  private runtime(manifest: PluginManifest): PluginRuntime {
    const runtime = this.deps.runtimes[manifest.runtime];
    if (!runtime)
      throw new Error(`runtime "${manifest.runtime}" is not available in this version of Tsumugi`);
    return runtime;
  }

  private pluginEnabled(id: string): boolean {
    return !this.disabled.has(id);
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
      (folder) => void this.serial(() => this.folderChanged(folder)),
      this.deps.logger,
    );
  }

  private serial<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.queue.then(operation);
    this.queue = next.catch((error: unknown) => {
      this.deps.logger.error({ err: error }, "plugin host operation failed");
    });
    return next;
  }

  private result(record: PluginRecord): PluginChangeResult {
    return { ok: true, status: this.statusOf(record) };
  }

  private changed(): void {
    if (this.listeners.size === 0) return;
    const status = this.list();
    for (const listener of this.listeners) listener(status);
  }

  private statusOf(record: PluginRecord): PluginStatus {
    const manifest = record.manifest;
    const version = record.active;
    const components: ComponentStatus[] = (version?.components ?? []).map(({ component }) => {
      const error = version?.componentErrors.get(component.fullName);
      return {
        kind: component.kind,
        name: component.name,
        fullName: component.fullName,
        description: component.description,
        enabled: version?.registrations.has(component.fullName) === true,
        ...(error ? { error } : {}),
      };
    });
    return {
      id: record.id,
      dir: record.dir,
      name: manifest?.name ?? record.id,
      version: manifest?.version ?? "",
      description: record.description ?? manifest?.description ?? "",
      runtime: manifest?.runtime ?? "",
      state: record.state,
      ...(record.error ? { error: record.error, errorAt: record.errorAt } : {}),
      ...(version ? { loadedAt: version.loadedAt } : {}),
      components,
      ...(record.config ? { config: record.config } : {}),
      ...(manifest ? { configSchema: manifest.config } : {}),
      ...version?.loaded.details?.(),
    };
  }
}

function countedComponents(loaded: LoadedPlugin, version: ActiveVersion): ActiveVersion["components"] {
  return loaded.components.map(({ component, enabled }) => ({
    component: counted(component, version),
    declaredEnabled: enabled,
  }));
}

/** The component with its calls counted in its version, so a reload knows when the old one is idle. */
function counted<T extends Component>(component: T, version: ActiveVersion): T {
  const invoke = component.invoke as (...args: unknown[]) => Promise<unknown>;
  return {
    ...component,
    invoke: async (...args: unknown[]) => {
      version.inflight++;
      try {
        return await invoke(...args);
      } finally {
        version.inflight--;
        if (version.inflight === 0) version.drained?.();
      }
    },
  };
}
