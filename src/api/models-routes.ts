import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { parseModelRef } from "../llm/model-ref.ts";
import { currencyOf } from "../llm/prices.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import type { ProviderInfo, UsageRow } from "./types.ts";

const DAY_MS = 86_400_000;
const TestBody = Type.Object({ ref: Type.String({ minLength: 3, maxLength: 300 }) });
const UsageQuery = Type.Object({ days: Type.Integer({ minimum: 1, maximum: 366, default: 30 }) });

/**
 * Models and spend: the providers (never their keys) and each task's model list, a test call
 * per model, and token usage per day, task and model with what it cost at `llm.prices` (as
 * recorded with each call).
 */
export function registerModelRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/models", async () => {
    const { llm } = deps.config();
    return {
      providers: llm.providers.map(
        (provider): ProviderInfo => ({
          id: provider.id,
          type: provider.type,
          baseUrl: "baseUrl" in provider ? (provider.baseUrl ?? null) : null,
          hasApiKey: "apiKey" in provider && provider.apiKey !== "",
        }),
      ),
      tasks: llm.models,
    };
  });

  app.post("/api/models/test", { schema: { body: TestBody } }, async (request, reply) => {
    const { ref } = request.body as Static<typeof TestBody>;
    let parsed: ReturnType<typeof parseModelRef>;
    try {
      parsed = parseModelRef(ref);
    } catch (error) {
      return reply.code(400).send({ error: "bad_request", message: (error as Error).message });
    }
    const provider = deps.config().llm.providers.find((candidate) => candidate.id === parsed.provider);
    if (!provider) {
      return reply.code(404).send({ error: "not_found", message: `no provider "${parsed.provider}"` });
    }
    return deps.testModel(provider, parsed.model);
  });

  app.get("/api/usage", { schema: { querystring: UsageQuery } }, async (request) => {
    const { days } = request.query as Static<typeof UsageQuery>;
    const sinceMs = Math.floor(Date.now() / DAY_MS - days + 1) * DAY_MS;
    const rows: UsageRow[] = await deps.usage.summarize({ sinceMs });
    const currency = currencyOf(deps.config().llm.prices) ?? null;
    return { since: new Date(sinceMs).toISOString().slice(0, 10), currency, rows };
  });
}
