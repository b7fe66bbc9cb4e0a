import { type Static, Type } from "@sinclair/typebox";
import { formattedString, group, stringEnum } from "../schema/fields.ts";

export const pluginsSchema = group("Plugins.", {
  dirs: Type.Array(Type.String({ minLength: 1 }), {
    default: ["./plugins"],
    description: "Folders whose sub-folders are plugins.",
  }),
  disabled: Type.Array(
    formattedString("plugin-ref", { description: '"pluginId" or "pluginId.component".' }),
    {
      default: [],
      description: "Plugins or single components that are not loaded.",
    },
  ),
  config: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
    default: {},
    description: "Plugin id → that plugin's config object (checked against the plugin's own schema).",
  }),
  sandbox: stringEnum(["auto", "bwrap", "off"], {
    default: "auto",
    description:
      "How stdio and Python plugins and MCP stdio servers not listed as trusted are started. auto: isolated with bubblewrap (bwrap) where it can run, otherwise not isolated (clean environment, another user when the bot runs as root, memory limit) with one warning; bwrap: isolated, and refused where bwrap cannot run; off: never isolated (as auto without bwrap, with no warning). Applies when a process next starts. See docs/security.md.",
  }),
  trusted: Type.Array(formattedString("plugin-id", { description: "A plugin id." }), {
    default: [],
    description:
      "Plugins whose processes run as the bot's own user with no isolation, as before the sandbox (MCP servers: mcp.servers[].trusted). Node plugins always run inside the bot's process.",
  }),
  sandboxMemoryMb: Type.Integer({
    minimum: 0,
    default: 512,
    description:
      "Memory (heap and anonymous mappings, RLIMIT_DATA) an untrusted plugin or MCP server process may allocate, in MB; 0: no limit.",
  }),
  sandboxUid: Type.Integer({
    minimum: 1,
    default: 65534,
    description:
      "When the bot runs as root: the user id untrusted plugin and MCP server processes run as (65534: nobody).",
  }),
  sandboxGid: Type.Integer({
    minimum: 1,
    default: 65534,
    description: "When the bot runs as root: the group id they run as (65534: nogroup).",
  }),
});

/** The `plugins` section of the bot config. */
export type PluginSettings = Static<typeof pluginsSchema>;
/** What the plugin host reads of it: where plugins are, which are off, their configs. */
export type PluginFolderSettings = Pick<PluginSettings, "dirs" | "disabled" | "config">;
