import type { Component, Disposer } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { LoadedPlugin } from "./runtime.ts";

/** How long an old version may keep running calls after a reload before it is unloaded anyway. */
export const RETIRE_GRACE_MS = 60_000;

/** One loaded version of a plugin with its registrations and the calls running in it. */
export interface ActiveVersion {
  loaded: LoadedPlugin;
  /** Components with their invoke counted, and whether they start enabled. */
  components: Array<{ component: Component; declaredEnabled: boolean }>;
  registrations: Map<string, Disposer>;
  componentErrors: Map<string, string>;
  inflight: number;
  drained: (() => void) | undefined;
  loadedAt: number;
}

/** Wraps a freshly loaded plugin as a version with nothing registered yet. */
export function activateVersion(loaded: LoadedPlugin): ActiveVersion {
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

/** Unregisters the version's components and takes its current component list afresh. */
export function recountComponents(version: ActiveVersion): void {
  unregisterAll(version);
  version.componentErrors.clear();
  version.components = countedComponents(version.loaded, version);
}

export function unregisterAll(version: ActiveVersion): void {
  for (const dispose of version.registrations.values()) dispose();
  version.registrations.clear();
}

/**
 * Takes the record's running version out of the registries at once. Given a grace time, it is
 * also unloaded before this returns, waiting that long at most for its calls; otherwise it is
 * unloaded in the background once its calls are done.
 */
export async function deactivate(
  record: { id: string; active?: ActiveVersion | undefined },
  logger: Logger,
  graceMs?: number,
): Promise<void> {
  const version = record.active;
  if (!version) return;
  unregisterAll(version);
  record.active = undefined;
  if (graceMs === undefined) void retire(record.id, version, RETIRE_GRACE_MS, logger);
  else await retire(record.id, version, graceMs, logger);
}

/** Unloads an old version once its in-flight calls are done (or the grace time is over). */
export async function retire(
  id: string,
  version: ActiveVersion,
  graceMs: number,
  logger: Logger,
): Promise<void> {
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
    logger.warn({ plugin: id, err: error }, "plugin unload failed");
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
