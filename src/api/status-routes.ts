import type { FastifyInstance } from "fastify";
import type { TsumugiConfig } from "../config/schema.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import { consoleAccounts } from "./known-accounts.ts";
import type { ConsoleStatus } from "./types.ts";

/** True when the planner has a model: without one the bot reads along but never answers. */
export function isModelConfigured(config: TsumugiConfig): boolean {
  return config.llm.models.planner.length > 0;
}

/** `GET /api/status`: what the console shows first, and how it learns whether it needs a token. */
export function registerStatusRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/status", async (): Promise<ConsoleStatus> => {
    const config = deps.config();
    return {
      bot: { name: config.bot.name },
      modelConfigured: isModelConfigured(config),
      configFile: deps.configFile ?? null,
      adapters: consoleAccounts(
        deps.health().adapters,
        await deps.knownAccounts.list(),
        deps.accountConnected,
      ),
      storage: deps.health().storage,
    };
  });
}
