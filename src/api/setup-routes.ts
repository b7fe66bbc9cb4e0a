import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { validateConfig } from "../config/validate.ts";
import { readConfigText, saveConfigText, withModelSetup } from "./config-file.ts";
import { notEditable } from "./config-routes.ts";
import { HIDDEN_SECRET } from "./config-secrets.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import { consoleAccounts } from "./known-accounts.ts";
import type { ConnectInfo } from "./types.ts";

const ModelSetup = Type.Object({
  providerId: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$", default: "main" }),
  type: Type.Union([
    Type.Literal("openai-compatible"),
    Type.Literal("openai"),
    Type.Literal("gemini"),
    Type.Literal("anthropic"),
  ]),
  baseUrl: Type.Optional(Type.String({ maxLength: 500 })),
  apiKey: Type.String({ maxLength: 500, default: "" }),
  model: Type.String({ minLength: 1, maxLength: 200 }),
});
type ModelSetupBody = Static<typeof ModelSetup>;

/**
 * First run: try a provider and model before saving them, save them as the planner's and
 * replyer's model, and show how to connect a OneBot implementation (NapCat and friends).
 */
export function registerSetupRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.post("/api/setup/test", { schema: { body: ModelSetup } }, async (request, reply) => {
    const body = request.body as ModelSetupBody;
    const validation = validateConfig({ llm: { providers: [providerEntry(body)] } });
    if (!validation.ok) return reply.code(400).send({ problems: validation.problems });
    return deps.testModel(validation.config.llm.providers[0]!, body.model);
  });

  app.post("/api/setup/model", { schema: { body: ModelSetup } }, async (request, reply) => {
    const file = deps.configFile;
    if (file === undefined) return notEditable(reply);
    const body = request.body as ModelSetupBody;
    const text = withModelSetup(readConfigText(file), { ...body, baseUrl: body.baseUrl || undefined });
    const saved = saveConfigText(file, text, deps.env);
    if (!saved.ok) return reply.code(400).send({ problems: saved.problems });
    deps.logger.info({ file, provider: body.providerId, model: body.model }, "model saved from the console");
    deps.applyConfig(saved.config);
    return { saved: true, file };
  });

  app.get("/api/connect", async (): Promise<ConnectInfo> => {
    const config = deps.config();
    const { port } = deps.address();
    const host = isWildcard(config.server.host) ? "127.0.0.1" : config.server.host;
    const accounts = consoleAccounts(
      deps.health().adapters,
      await deps.knownAccounts.list(),
      deps.accountConnected,
    );
    return {
      adapters: config.adapters.map((adapter) => {
        const accountsHere = accounts.filter(
          (account) => account.id === adapter.id && account.selfId !== null,
        );
        if (adapter.type === "qq-official") {
          // The platform posts to the callback address (an HTTPS proxy in front of this one).
          return {
            id: adapter.id,
            mode: "qq-official" as const,
            url: `http://${host}:${port}${adapter.path}`,
            apiUrl: adapter.apiBase,
            accessToken: adapter.secret === "" ? "" : HIDDEN_SECRET,
            accounts: accountsHere,
          };
        }
        return {
          id: adapter.id,
          mode: adapter.mode,
          // Where the implementation connects (reverse-ws) or posts (http), or where we connect.
          url:
            adapter.mode === "reverse-ws"
              ? `ws://${host}:${port}${adapter.path}`
              : adapter.mode === "http"
                ? `http://${host}:${port}${adapter.path}`
                : adapter.url,
          apiUrl: adapter.mode === "http" ? adapter.url : null,
          // Masked as /api/config masks it: the page says whether one is set, never what it is.
          accessToken: adapter.accessToken === "" ? "" : HIDDEN_SECRET,
          accounts: accountsHere,
        };
      }),
    };
  });
}

function providerEntry(body: ModelSetupBody): Record<string, string> {
  const entry: Record<string, string> = { id: body.providerId, type: body.type, apiKey: body.apiKey };
  if (body.baseUrl) entry.baseUrl = body.baseUrl;
  return entry;
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}
