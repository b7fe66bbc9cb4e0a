import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { readConfigText, saveConfigText, withModelSetup } from "./config-file.ts";
import { notEditable } from "./config-routes.ts";
import type { ConsoleApiDeps } from "./deps.ts";

const ModelName = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });
type ModelNameBody = Static<typeof ModelName>;

/** The provider id the console gives the local model. */
const LOCAL_PROVIDER_ID = "local";

/**
 * "Local model" on the first-run page: `GET /api/local-model` is the state to show (runtime,
 * recommended and downloaded models, download progress with speed and ETA, loaded models with
 * memory and tokens/s; poll it while a download runs), `POST …/pull` starts a download,
 * `POST …/use` makes a downloaded model the planner's and replyer's.
 */
export function registerLocalModelRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/local-model", async () => deps.localModels.snapshot());

  app.post("/api/local-model/pull", { schema: { body: ModelName } }, async (request, reply) => {
    const { name } = request.body as ModelNameBody;
    if (!deps.localModels.snapshot().recommended.some((entry) => entry.name === name)) {
      return reply.code(400).send({ problems: [`"${name}" is not a recommended model`] });
    }
    // Progress and failure show in the snapshot; the request does not wait for the download.
    deps.localModels.pull(name).catch(() => {});
    return reply.code(202).send({ started: true });
  });

  app.post("/api/local-model/use", { schema: { body: ModelName } }, async (request, reply) => {
    const file = deps.configFile;
    if (file === undefined) return notEditable(reply);
    const { name } = request.body as ModelNameBody;
    if (!deps.localModels.snapshot().installed.some((model) => model.name === name)) {
      return reply.code(409).send({ problems: [`${name} is not downloaded yet: download it first`] });
    }
    const text = withModelSetup(readConfigText(file), {
      providerId: LOCAL_PROVIDER_ID,
      type: "llama-cpp",
      model: name,
    });
    const saved = saveConfigText(file, text, deps.env);
    if (!saved.ok) return reply.code(400).send({ problems: saved.problems });
    deps.applyConfig(saved.config);
    deps.logger.info({ file, model: name }, "local model chosen in the console");
    return { saved: true, file };
  });
}
