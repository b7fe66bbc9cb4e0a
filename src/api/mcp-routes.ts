import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { ConsoleApiDeps } from "./deps.ts";

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * MCP servers: each one's state (connected / connecting / down / disabled), last error and
 * tools, and a restart. Servers are added and edited in the config (`mcp.servers`); their
 * tools are switched on and off on the plugin page, like plugin components.
 */
export function registerMcpRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/mcp", async () => ({ servers: deps.mcp.servers() }));

  app.post("/api/mcp/:id/restart", { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    const server = await deps.mcp.restart(id);
    if (!server) return reply.code(404).send({ error: "no_such_server", message: `no MCP server "${id}"` });
    return { server };
  });
}
