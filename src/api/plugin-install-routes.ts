import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { PluginInstallError } from "../plugins/install/npm-package.ts";
import type { ConsoleApiDeps } from "./deps.ts";

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const Spec = Type.String({ minLength: 1, maxLength: 1000 });
const PreviewBody = Type.Object({ spec: Spec });
const InstallBody = Type.Object({
  spec: Spec,
  allowScripts: Type.Optional(Type.Boolean()),
  expect: Type.Optional(
    Type.Object({
      id: Type.String(),
      version: Type.String(),
      integrity: Type.Optional(Type.String({ maxLength: 200 })),
    }),
  ),
});
const UpdateBody = Type.Object({
  spec: Type.Optional(Spec),
  allowScripts: Type.Optional(Type.Boolean()),
});

const STATUS_OF_ERROR: Record<PluginInstallError["code"], number> = {
  pack_failed: 400,
  too_large: 400,
  no_manifest: 400,
  invalid_manifest: 400,
  changed: 409,
  id_clash: 409,
  not_installed: 404,
  npm_install_failed: 502,
  unsafe_package: 400,
  no_plugin_folder: 400,
};

/**
 * Installing plugins from npm packages (registry names, git URLs, local `.tgz` files): a
 * preview of the manifest, install, update and uninstall. The installed plugin is loaded at
 * once and its status returned beside what was installed.
 */
export function registerPluginInstallRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const { installer, plugins } = deps;

  app.get("/api/plugins/installed", async () => ({ plugins: await installer.list() }));

  app.post("/api/plugins/install/preview", { schema: { body: PreviewBody } }, async (request, reply) => {
    const { spec } = request.body as Static<typeof PreviewBody>;
    return answer(reply, async () => ({ preview: await installer.preview(spec) }));
  });

  app.post("/api/plugins/install", { schema: { body: InstallBody } }, async (request, reply) => {
    const { spec, ...options } = request.body as Static<typeof InstallBody>;
    return answer(reply, async () => {
      const installed = await installer.install(spec, options);
      return { installed, plugin: plugins.get(installed.id) };
    });
  });

  app.post(
    "/api/plugins/:id/update",
    { schema: { params: IdParams, body: UpdateBody } },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const options = request.body as Static<typeof UpdateBody>;
      return answer(reply, async () => {
        const installed = await installer.update(id, options);
        return { installed, plugin: plugins.get(installed.id) };
      });
    },
  );

  app.post("/api/plugins/:id/uninstall", { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    return answer(reply, async () => {
      await installer.uninstall(id);
      return { uninstalled: id };
    });
  });

  async function answer(reply: FastifyReply, operation: () => Promise<object>) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof PluginInstallError)) throw error;
      deps.logger.warn({ code: error.code }, error.message);
      return reply.code(STATUS_OF_ERROR[error.code]).send({ error: error.code, message: error.message });
    }
  }
}
