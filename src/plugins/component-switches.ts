import type { ComponentRegistry } from "../components/registry.ts";
import type { Component, ComponentKind } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { PluginRecord } from "./plugin-status.ts";

export type ComponentRegistries = {
  [K in ComponentKind]: ComponentRegistry<Extract<Component, { kind: K }>>;
};

/**
 * Which plugins ("id") and components ("id.component") are switched on: the config's
 * disabled list plus the run-time `enable` / `disable` changes made since.
 */
export class PluginSwitches {
  private disabled: Set<string>;
  /** Components switched on at run time although they declare `enabled: false`. */
  private readonly enabledOverrides = new Set<string>();

  constructor(disabled: readonly string[]) {
    this.disabled = new Set(disabled);
  }

  /** Starts over from an edited config's disabled list, dropping run-time changes. */
  reset(disabled: readonly string[]): void {
    this.disabled = new Set(disabled);
    this.enabledOverrides.clear();
  }

  set(ref: string, enabled: boolean, isComponent: boolean): void {
    if (enabled) {
      this.disabled.delete(ref);
      if (isComponent) this.enabledOverrides.add(ref);
    } else {
      this.disabled.add(ref);
      this.enabledOverrides.delete(ref);
    }
  }

  pluginEnabled(id: string): boolean {
    return !this.disabled.has(id);
  }

  componentEnabled(fullName: string, declaredEnabled: boolean): boolean {
    return !this.disabled.has(fullName) && (declaredEnabled || this.enabledOverrides.has(fullName));
  }
}

/** Registers the running version's components that should be on, removes the ones that should be off. */
export function syncComponents(
  record: PluginRecord,
  switches: PluginSwitches,
  registries: ComponentRegistries,
  logger: Logger,
): void {
  const version = record.active;
  if (!version) return;
  for (const { component, declaredEnabled } of version.components) {
    const name = component.fullName;
    const wanted = switches.componentEnabled(name, declaredEnabled);
    const registered = version.registrations.get(name);
    if (wanted && !registered) {
      try {
        const registry = registries[component.kind] as ComponentRegistry<Component>;
        version.registrations.set(name, registry.add(component));
        version.componentErrors.delete(name);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        version.componentErrors.set(name, message);
        logger.error({ plugin: record.id, component: name }, `component not registered: ${message}`);
      }
    } else if (!wanted && registered) {
      registered();
      version.registrations.delete(name);
    }
  }
}
