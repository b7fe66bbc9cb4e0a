import type { FastifyInstance } from "fastify";
import type { ConsoleApiDeps } from "./deps.ts";
import type { ClusterAnswer } from "./types.ts";

/**
 * `GET /api/cluster`: every live instance of the cluster this bot belongs to (instances over Redis), read
 * from their heartbeats in Redis, so the console of any instance shows all of them.
 */
export function registerClusterRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/cluster", async (): Promise<ClusterAnswer> => {
    const view = await deps.cluster();
    if (view === undefined) return { enabled: false };
    return { enabled: true, self: view.self, instances: view.instances };
  });
}
