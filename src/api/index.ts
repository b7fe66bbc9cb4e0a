import type { FastifyInstance } from "fastify";
import { registerChatRoutes } from "./chats-routes.ts";
import { registerClusterRoutes } from "./cluster-routes.ts";
import { registerConfigRoutes } from "./config-routes.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import { registerGroupRoutes } from "./groups-routes.ts";
import { registerKnowledgeRoutes } from "./knowledge-routes.ts";
import { registerKnownAccountRoutes } from "./known-accounts.ts";
import { registerLocalModelRoutes } from "./local-model-routes.ts";
import { registerMcpRoutes } from "./mcp-routes.ts";
import { registerMemoryRoutes } from "./memory-routes.ts";
import { registerModelRoutes } from "./models-routes.ts";
import { registerMonitorRoutes } from "./monitor-routes.ts";
import { registerParticipationRoutes } from "./participation-routes.ts";
import { registerPictureRoutes } from "./picture-routes.ts";
import { registerPlaygroundRoutes } from "./playground-routes.ts";
import { registerPluginInstallRoutes } from "./plugin-install-routes.ts";
import { registerPluginRoutes } from "./plugin-routes.ts";
import { registerReminderRoutes } from "./reminder-routes.ts";
import { registerSetupRoutes } from "./setup-routes.ts";
import { registerStatusRoutes } from "./status-routes.ts";

/** Every `/api/*` route of the console. The server's bearer-token guard covers them all. */
export function registerConsoleApi(app: FastifyInstance, deps: ConsoleApiDeps): void {
  registerStatusRoutes(app, deps);
  registerPlaygroundRoutes(app, deps);
  registerMonitorRoutes(app, deps);
  registerModelRoutes(app, deps);
  registerConfigRoutes(app, deps);
  registerSetupRoutes(app, deps);
  registerKnownAccountRoutes(app, deps);
  registerLocalModelRoutes(app, deps);
  registerChatRoutes(app, deps);
  registerPictureRoutes(app, deps);
  registerPluginInstallRoutes(app, deps);
  registerPluginRoutes(app, deps);
  registerMcpRoutes(app, deps);
  registerMemoryRoutes(app, deps);
  registerGroupRoutes(app, deps);
  registerKnowledgeRoutes(app, deps);
  registerReminderRoutes(app, deps);
  registerClusterRoutes(app, deps);
  registerParticipationRoutes(app, deps);
}
