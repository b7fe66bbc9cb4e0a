import type { FastifyInstance } from "fastify";
import type { AccountStatus } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { AdapterHealth } from "../server/health-report.ts";
import type { KnownAccount, KnownAccountStore } from "../store/types.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import type { ConsoleAccount } from "./types.ts";

/** Remembers an account when it connects (again: a dismissed account comes back). */
export function rememberConnected(
  store: KnownAccountStore,
  adapterId: string,
  status: AccountStatus,
  logger: Logger,
): void {
  if (!status.connected) return;
  store
    .remember({ adapterId, selfId: status.selfId, lastConnectedAt: Date.now() })
    .catch((error: unknown) => {
      logger.warn(
        { err: error, adapter: adapterId, selfId: status.selfId },
        "could not remember the account",
      );
    });
}

/**
 * The accounts the console lists, adapter by adapter as `live` has them (this instance's
 * connections): the connected ones, and those that connected before and are gone now, also
 * from before a restart, until dismissed. An adapter with neither keeps its waiting entry.
 */
export function consoleAccounts(
  live: AdapterHealth[],
  known: KnownAccount[],
  connectedAnywhere: ConsoleApiDeps["accountConnected"],
): ConsoleAccount[] {
  const adapterIds = [...new Set(live.map((account) => account.id))];
  return adapterIds.flatMap((adapterId) => {
    const knownHere = new Map(
      known.filter((account) => account.adapterId === adapterId).map((account) => [account.selfId, account]),
    );
    const liveHere = live.filter((account) => account.id === adapterId && account.selfId !== null);
    const shown: ConsoleAccount[] = [];
    for (const account of liveHere) {
      const remembered = knownHere.get(account.selfId ?? "");
      if (!account.connected && remembered === undefined) continue; // dismissed
      shown.push(remembered ? { ...account, lastConnectedAt: remembered.lastConnectedAt } : account);
    }
    for (const remembered of knownHere.values()) {
      if (liveHere.some((account) => account.selfId === remembered.selfId)) continue;
      // Connected to another instance of a cluster: that instance's console lists it.
      if (connectedAnywhere(adapterId, remembered.selfId)) continue;
      shown.push({
        id: adapterId,
        selfId: remembered.selfId,
        connected: false,
        lastConnectedAt: remembered.lastConnectedAt,
      });
    }
    return shown.length > 0 ? shown : [{ id: adapterId, selfId: null, connected: false }];
  });
}

/**
 * `DELETE /api/connect/accounts/:adapterId/:selfId`: the operator dismisses an account that is
 * gone, so the console stops listing it until it connects again. A connected one stays.
 */
export function registerKnownAccountRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.delete<{ Params: { adapterId: string; selfId: string } }>(
    "/api/connect/accounts/:adapterId/:selfId",
    {
      schema: {
        params: {
          type: "object",
          properties: {
            adapterId: { type: "string", minLength: 1, maxLength: 64 },
            selfId: { type: "string", minLength: 1, maxLength: 64 },
          },
          required: ["adapterId", "selfId"],
        },
      },
    },
    async (request, reply) => {
      const { adapterId, selfId } = request.params;
      if (deps.accountConnected(adapterId, selfId)) {
        return reply
          .code(409)
          .send({ error: "connected", message: `account ${selfId} on ${adapterId} is connected now` });
      }
      if (!(await deps.knownAccounts.forget(adapterId, selfId))) {
        return reply
          .code(404)
          .send({ error: "not_found", message: `no account ${selfId} on ${adapterId} to dismiss` });
      }
      deps.logger.info({ adapter: adapterId, selfId }, "account dismissed from the console");
      return { dismissed: true };
    },
  );
}
