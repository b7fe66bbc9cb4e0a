/**
 * `tsumugi/sdk`: what a plugin imports. The host makes the specifier resolve for plugins in
 * any folder. See docs/plugins.md.
 */
export { Command, Enricher, Hook, ReplyExtension, Tool } from "./decorators.ts";
export { Plugin } from "./plugin.ts";
export { At, Image, Reply, Text, Voice } from "./segments.ts";
export type * from "./types.ts";
export { SDK_VERSION } from "./version.ts";
