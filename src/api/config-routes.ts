import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { diffConfig } from "../config/reload.ts";
import { configJsonSchema } from "../config/schema.ts";
import { readConfigText, saveConsoleEdit } from "./config-file.ts";
import { consoleSecretsSchema, maskSecrets } from "./config-secrets.ts";
import type { ConsoleApiDeps } from "./deps.ts";

const ConfigBody = Type.Object({ yaml: Type.String({ maxLength: 1_000_000 }) });

/**
 * The config file: read with secrets hidden (those the config schema marks, and those each
 * plugin's config schema marks under `plugins.config`), and replaced with an edited text once
 * it passes the same checks as at start-up. The config watcher applies a saved file without a
 * restart where it can; the answer says which changed keys need one.
 */
export function registerConfigRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const secretsSchema = () => consoleSecretsSchema(deps.plugins.list());

  app.get("/api/config", async () => {
    const yaml = maskSecrets(readConfigText(deps.configFile), secretsSchema());
    return {
      file: deps.configFile ?? null,
      // A file broken by hand is not shown (its secrets cannot be told apart), so fix it there.
      editable: deps.configFile !== undefined && yaml !== undefined,
      yaml: yaml ?? "",
      problems: yaml === undefined ? [`${deps.configFile}: not valid YAML; fix it in a text editor`] : [],
      schema: configJsonSchema,
    };
  });

  app.put("/api/config", { schema: { body: ConfigBody } }, async (request, reply) => {
    const file = deps.configFile;
    if (file === undefined) return notEditable(reply);
    const { yaml } = request.body as Static<typeof ConfigBody>;
    const saved = saveConsoleEdit(file, yaml, deps.env, secretsSchema());
    if (!saved.ok) return reply.code(400).send({ problems: saved.problems });
    deps.logger.info({ file }, "config saved from the console");
    const diff = diffConfig(deps.config(), saved.config);
    deps.applyConfig(saved.config);
    return { saved: true, ...diff };
  });
}

export function notEditable(reply: FastifyReply): FastifyReply {
  return reply.code(409).send({
    error: "no_config_file",
    message: "the bot was started without a config file it can write",
  });
}
