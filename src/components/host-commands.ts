import type { CommandRegistry } from "./command-registry.ts";
import type { CommandComponent, Disposer } from "./types.ts";

/**
 * The host's own commands (/help, /plugins, /approve, /deny, /summary, /memory, /forget) as one
 * built-in plugin of owner `tsumugi`: each part of the bot adds its commands here, `load`
 * registers them all, and `dispose` takes every registration away again.
 */
export class HostCommands {
  private readonly commands: CommandComponent[] = [];
  /** The registrations' disposers while the plugin is loaded. */
  private registrations: Disposer[] | undefined;

  constructor(private readonly registry: CommandRegistry) {}

  /** Adds a command; it is registered at once when the plugin is loaded, else when it loads. */
  add(command: CommandComponent): void {
    this.commands.push(command);
    this.registrations?.push(this.registry.add(command));
  }

  load(): void {
    if (this.registrations) return;
    this.registrations = this.commands.map((command) => this.registry.add(command));
  }

  dispose(): void {
    for (const dispose of this.registrations ?? []) dispose();
    this.registrations = undefined;
  }
}
