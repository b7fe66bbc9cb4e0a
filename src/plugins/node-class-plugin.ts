import { type Built, buildCommand, buildEnricher, buildHook, buildTool } from "../components/builders.ts";
import { buildReplyExtension } from "../components/extension-builder.ts";
import type { CallContext, Component } from "../components/types.ts";
import type { Plugin } from "../sdk/plugin.ts";
import { ATTACH, DECLARATIONS, type Declaration, PLUGIN_BRAND } from "../sdk/sdk-symbols.ts";
import type { HookResult, OutgoingMessage, PluginLogger } from "../sdk/types.ts";
import type { PluginModuleScope } from "./module-loader.ts";
import { assertUniqueNames, type LoadedPlugin, pluginLogger, type RuntimeLoadRequest } from "./runtime.ts";

type Instance = Plugin & { [DECLARATIONS]?: Declaration[] };

/** Whether `value` is a Plugin subclass, from any copy of the SDK (the brand is a global symbol). */
export function isPluginClass(value: unknown): value is new () => Plugin {
  return typeof value === "function" && (value as { [PLUGIN_BRAND]?: boolean })[PLUGIN_BRAND] === true;
}

/** A plugin whose entry default-exports a `Plugin` subclass with decorated methods. */
export async function loadClassPlugin(
  scope: PluginModuleScope,
  request: RuntimeLoadRequest,
): Promise<LoadedPlugin> {
  const PluginClass = scope.entry.default;
  if (!isPluginClass(PluginClass)) throw new Error("the entry's default export is not a Plugin subclass");
  const { manifest } = request;
  const logger = pluginLogger(request.logger);
  const instance = new PluginClass() as Instance;
  instance[ATTACH]({ id: manifest.id, config: request.config, logger });
  const components = (instance[DECLARATIONS] ?? []).map((declaration) =>
    componentOf(declaration, instance, request, logger),
  );
  assertUniqueNames(components, manifest.id);
  await instance.onLoad();
  return {
    components,
    configChanged: async (config) => {
      await instance.onConfigChanged(config);
    },
    unload: async () => {
      await instance.onUnload();
    },
  };
}

function componentOf(
  declaration: Declaration,
  instance: Instance,
  request: RuntimeLoadRequest,
  logger: PluginLogger,
): Built<Component> {
  const identity = { pluginId: request.manifest.id, name: declaration.name };
  const method = declaration.method;
  const context = (call: CallContext) => ({
    bot: call.bot,
    event: call.event,
    config: request.config(),
    logger,
    pictures: call.pictures,
    memory: call.memoryFor(request.manifest.id),
    speech: call.speech,
  });
  switch (declaration.kind) {
    case "tool":
      return buildTool(
        identity,
        declaration.options,
        request.manifest.timeout,
        request.ajv,
        async (args, call) =>
          method.call(instance, args, {
            ...context(call),
            reply_id: call.replyId ?? "",
            call_id: call.callId ?? "",
            signal: call.signal,
          }),
      );
    case "command":
      return buildCommand(
        identity,
        declaration.options,
        async (match, call) =>
          (await method.call(instance, {
            ...context(call),
            command: match.command,
            args: match.args,
            rest: match.rest,
            ...(match.match ? { match: match.match } : {}),
            is_admin: call.isAdmin,
          })) as OutgoingMessage | undefined,
      );
    case "hook":
      return buildHook(
        identity,
        declaration.options,
        async (input, call) =>
          (await method.call(instance, input, { ...context(call), signal: call.signal })) as
            | HookResult
            | undefined,
      );
    case "enricher":
      return buildEnricher(
        identity,
        declaration.options,
        async (call) =>
          (await method.call(instance, {
            ...context(call),
            reply_id: call.replyId ?? "",
            signal: call.signal,
          })) as string | undefined,
      );
    case "reply_extension":
      return buildReplyExtension(identity, declaration.options, request.ajv, async (payload, call) =>
        method.call(instance, payload, {
          config: request.config(),
          logger,
          signal: call.signal,
          speech: call.speech,
        }),
      );
  }
}
