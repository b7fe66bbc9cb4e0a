/**
 * How the host and a plugin's copy of the SDK recognise each other. The keys come from the
 * global symbol registry, so a plugin that imported another copy of the SDK (each plugin
 * version loads its own, and a plugin may bundle one) still matches the host.
 */
import type {
  CommandOptions,
  EnricherOptions,
  HookOptions,
  PluginLogger,
  ReplyExtensionOptions,
  ToolOptions,
} from "./types.ts";

/** Static marker on the `Plugin` base class. */
export const PLUGIN_BRAND: unique symbol = Symbol.for("tsumugi.sdk.plugin");
/** Per-instance list of the components its decorators declared. */
export const DECLARATIONS: unique symbol = Symbol.for("tsumugi.sdk.declarations");
/** Method the host calls once, before `onLoad`, to give the instance its binding. */
export const ATTACH: unique symbol = Symbol.for("tsumugi.sdk.attach");

// biome-ignore lint/complexity/noBannedTypes: any method, called with the host's arguments
type Method = Function;

export type Declaration =
  | { kind: "tool"; name: string; options: ToolOptions; method: Method }
  | { kind: "command"; name: string; options: CommandOptions; method: Method }
  | { kind: "hook"; name: string; options: HookOptions; method: Method }
  | { kind: "enricher"; name: string; options: EnricherOptions; method: Method }
  | { kind: "reply_extension"; name: string; options: ReplyExtensionOptions; method: Method };

/** What the host gives a plugin instance. */
export interface PluginBinding {
  id: string;
  config(): unknown;
  logger: PluginLogger;
}

export function declare(instance: object, declaration: Declaration): void {
  const holder = instance as { [DECLARATIONS]?: Declaration[] };
  if (!Object.hasOwn(holder, DECLARATIONS)) holder[DECLARATIONS] = [];
  holder[DECLARATIONS]!.push(declaration);
}
