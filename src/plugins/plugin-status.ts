import type { Logger } from "../log/logger.ts";
import type { PluginManifest } from "./manifest.ts";
import type { ActiveVersion } from "./plugin-version.ts";
import type { ComponentStatus, PluginState, PluginStatus } from "./status-types.ts";

export type PluginChangeResult = { ok: true; status: PluginStatus } | { ok: false; error: string };

/**
 * A plugin the bot's config declares rather than a folder (an MCP server): the host loads it
 * through the runtime its manifest names, like a folder's, and again whenever it changes.
 */
export interface DeclaredPlugin {
  manifest: PluginManifest;
  /** Where its status says it lives (a command line, a URL). */
  dir: string;
  /** false: switched off in its own settings (`enabled: false`), so not loaded. */
  enabled: boolean;
  /** Changes whenever its settings do. */
  revision: string;
}

/** What the host keeps about one plugin (a folder or a declared one), whether or not a version of it is running. */
export interface PluginRecord {
  dir: string;
  /** Set for a declared plugin: what was declared last. */
  declared?: DeclaredPlugin;
  id: string;
  manifest?: PluginManifest;
  description?: string;
  state: PluginState;
  error?: string;
  errorAt?: number;
  config?: Record<string, unknown>;
  active?: ActiveVersion;
}

/** Records a load that failed (the id, when known, is the manifest's) and logs it. */
export function markFailed(
  record: PluginRecord,
  message: string,
  id: string | undefined,
  logger: Logger,
): void {
  if (id) record.id = id;
  record.state = "failed";
  record.error = message;
  record.errorAt = Date.now();
  logger.error(
    { plugin: record.id, dir: record.dir, error: message },
    `plugin ${record.id} failed to load: ${message}`,
  );
}

/** The public view of a record: what `list`, `get` and the change results report. */
export function statusOf(record: PluginRecord): PluginStatus {
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
