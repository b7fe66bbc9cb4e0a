import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { PluginChangeResult, PluginStatus } from "../plugins/plugin-host.ts";
import { formatKeyPath } from "../schema/key-path.ts";
import {
  type PluginSettingChange,
  readConfigText,
  saveConfigText,
  withPluginSetting,
} from "./config-file.ts";
import { maskValue, restoreValue } from "./config-secrets.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import { openEventStream } from "./event-stream.ts";

const RefParams = Type.Object({ ref: Type.String({ minLength: 1, maxLength: 200 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 68 }) });
const ConfigBody = Type.Object({ config: Type.Record(Type.String(), Type.Unknown()) });

/**
 * Plugins: every plugin and component with its status and last error, enable / disable /
 * reload, and its config (checked against the plugin's JSON Schema). Changes apply at once
 * through the plugin host and, when the bot runs from a config file, are written to
 * `plugins.disabled` / `plugins.config` so they outlast a restart. The status objects are the
 * host's own, so what a runtime adds to them (stdio process state, `web_ui` widgets) reaches
 * the console unchanged, except config fields the plugin's schema marks secret (`writeOnly` or
 * `format: "password"`): those are hidden, and saving the placeholder back keeps the value.
 */
export function registerPluginRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const { plugins } = deps;

  app.get("/api/plugins", async () => ({
    plugins: plugins.list().map(withSecretsHidden),
    persistent: deps.configFile !== undefined,
  }));

  app.post("/api/plugins/:ref/enable", { schema: { params: RefParams } }, async (request, reply) => {
    const { ref } = request.params as Static<typeof RefParams>;
    return answer(reply, await plugins.enable(ref), { kind: "enable", ref });
  });

  app.post("/api/plugins/:ref/disable", { schema: { params: RefParams } }, async (request, reply) => {
    const { ref } = request.params as Static<typeof RefParams>;
    return answer(reply, await plugins.disable(ref), { kind: "disable", ref });
  });

  app.post("/api/plugins/:id/reload", { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    return answer(reply, await plugins.reload(id));
  });

  app.put(
    "/api/plugins/:id/config",
    { schema: { params: IdParams, body: ConfigBody } },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const { config: edited } = request.body as Static<typeof ConfigBody>;
      const current = plugins.list().find((plugin) => plugin.id === id);
      if (!current)
        return reply.code(404).send({ error: "plugin_change_failed", message: `no plugin "${id}"` });
      const restored = restoreValue(edited, current.config ?? {}, current.configSchema ?? {}, (path) =>
        formatKeyPath(["plugins", "config", id, ...path]),
      );
      if ("problems" in restored) return reply.code(400).send({ problems: restored.problems });
      const { value: config, kept } = restored;
      return answer(reply, await plugins.setConfig(id, config), {
        kind: "config",
        pluginId: id,
        config,
        kept,
      });
    },
  );

  app.get("/api/plugins/stream", async (_request, reply) => {
    openEventStream(reply, (send) =>
      plugins.subscribe((list) => send("plugins", list.map(withSecretsHidden))),
    );
  });

  function answer(reply: FastifyReply, result: PluginChangeResult, change?: PluginSettingChange) {
    if (!result.ok) {
      const status = result.error.startsWith("no plugin") ? 404 : 400;
      return reply.code(status).send({ error: "plugin_change_failed", message: result.error });
    }
    return { plugin: withSecretsHidden(result.status), persisted: change ? persist(change) : false };
  }

  /** Writes the change to the config file; false when there is none or the write was refused. */
  function persist(change: PluginSettingChange): boolean {
    const file = deps.configFile;
    if (file === undefined) return false;
    const saved = saveConfigText(file, withPluginSetting(readConfigText(file), change), deps.env);
    if (!saved.ok) {
      deps.logger.warn({ file, problems: saved.problems }, "plugin change not written to the config");
      return false;
    }
    deps.applyConfig(saved.config);
    return true;
  }
}

function withSecretsHidden(status: PluginStatus): PluginStatus {
  if (!status.config || !status.configSchema) return status;
  return { ...status, config: maskValue(status.config, status.configSchema) };
}
