import type { JsonSchema } from "../sdk/types.ts";
import { ComponentRegistry } from "./registry.ts";
import type { ReplyExtensionComponent, SessionRef } from "./types.ts";

const PLUGIN_OPTIONS_DESCRIPTION =
  "回复扩展：需要某个扩展时，以它的「插件ID.组件名」为键填入参数；不填的扩展不会被调用。";

/** The reply extensions that are registered and enabled, whatever runtime provides them. */
export class ReplyExtensionRegistry extends ComponentRegistry<ReplyExtensionComponent> {
  /**
   * The reply tool's `plugin_options` schema for a session: one key per extension active
   * there, holding that extension's parameter schema. Undefined when none is, so the reply
   * tool then has no `plugin_options` at all (as if none existed). Keys are in full-name order, so the
   * declaration stays byte-identical across turns (prefix caches).
   */
  optionsSchema(session: SessionRef): JsonSchema | undefined {
    const extensions = this.visibleIn(session);
    if (extensions.length === 0) return undefined;
    const properties: Record<string, JsonSchema> = {};
    for (const extension of extensions) {
      properties[extension.fullName] = extension.description
        ? { ...extension.parameters, description: extension.description }
        : extension.parameters;
    }
    return {
      type: "object",
      description: PLUGIN_OPTIONS_DESCRIPTION,
      properties,
      additionalProperties: false,
    };
  }
}
