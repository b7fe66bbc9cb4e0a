import { type Static, Type } from "@sinclair/typebox";
import { formattedString, group } from "../schema/fields.ts";

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
});

/** The `plugins` section of the bot config. */
export type PluginSettings = Static<typeof pluginsSchema>;
