import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { parseModelRef } from "../llm/model-ref.ts";
import { currencyOf } from "../llm/prices.ts";
import { groupOfSession } from "../message/session-id.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import type { BudgetsAnswer, DailySpendAnswer, GroupBudgetReport, ProviderInfo, UsageRow } from "./types.ts";

const DAY_MS = 86_400_000;
/** The first UTC midnight of the last `days` days, today included. */
function firstDayOf(days: number): number {
  return Math.floor(Date.now() / DAY_MS - days + 1) * DAY_MS;
}

function highestShare(report: GroupBudgetReport): number {
  return Math.max(0, ...report.budgets.map((budget) => budget.share));
}

const TestBody = Type.Object({ ref: Type.String({ minLength: 3, maxLength: 300 }) });
const UsageQuery = Type.Object({ days: Type.Integer({ minimum: 1, maximum: 366, default: 30 }) });

/**
 * Models and spend: the providers (never their keys) and each task's model list, a test call
 * per model, and token usage per day, task and model with what it cost at `llm.prices` (as
 * recorded with each call); the same per day, chat and model for the cost chart, and the
 * budgets in force with how much of each is used now.
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
    const sinceMs = firstDayOf(days);
    const rows: UsageRow[] = await deps.usage.summarize({ sinceMs });
    const currency = currencyOf(deps.config().llm.prices) ?? null;
    return { since: new Date(sinceMs).toISOString().slice(0, 10), currency, rows };
  });

  app.get("/api/usage/daily", { schema: { querystring: UsageQuery } }, async (request) => {
    const { days } = request.query as Static<typeof UsageQuery>;
    const sinceMs = firstDayOf(days);
    const answer: DailySpendAnswer = {
      since: new Date(sinceMs).toISOString().slice(0, 10),
      currency: currencyOf(deps.config().llm.prices) ?? null,
      rows: await deps.usage.dailySpend({ sinceMs }),
    };
    return answer;
  });

  app.get("/api/budgets", async () => {
    const config = deps.config();
    const groups: GroupBudgetReport[] = [];
    for (const sessionId of await deps.budgets.groupsWithSpending()) {
      const report = await deps.budgets.report(sessionId);
      const own = report.budgets.filter((budget) => budget.scope === "group");
      if (own.length === 0) continue;
      groups.push({ ...report, budgets: own, sessionId, groupId: groupOfSession(sessionId) ?? sessionId });
    }
    // The nearest to its budget first: those are the ones to look at.
    groups.sort((a, b) => highestShare(b) - highestShare(a));
    const answer: BudgetsAnswer = {
      currency: currencyOf(config.llm.prices) ?? null,
      economyAt: config.limits.economyAt,
      economyModels: config.llm.models.economy,
      all: await deps.budgets.report(),
      groups,
    };
    return answer;
  });
}
