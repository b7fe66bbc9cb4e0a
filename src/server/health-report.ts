import type { StorageStatus } from "../store/types.ts";

/** One platform account as `/healthz` and the console report it. */
export interface AdapterHealth {
  id: string;
  /** Null while no account has identified on this adapter. */
  selfId: string | null;
  connected: boolean;
  online?: boolean;
  /** Unix ms until which the platform refuses this account's sends for their rate; absent when not limited. */
  rateLimitedUntil?: number;
}

/**
 * `GET /healthz` with the API token, and `/api/status`. No runtime imports: the console's front
 * end imports this file too.
 */
export interface HealthReport {
  status: "ok";
  adapters: AdapterHealth[];
  /** Whether writes reach the database; `degraded` while they are held in memory and retried. */
  storage: StorageStatus;
}

/** An account as `/healthz` shows it without the API token: its connection, not its number. */
export type PublicAdapterHealth = Omit<AdapterHealth, "selfId">;

/** `GET /healthz` without the API token: one entry per account still, so they can be counted. */
export interface PublicHealthReport extends Omit<HealthReport, "adapters"> {
  adapters: PublicAdapterHealth[];
}

export function withoutAccountIds(report: HealthReport): PublicHealthReport {
  return {
    ...report,
    adapters: report.adapters.map((account) => ({
      id: account.id,
      connected: account.connected,
      ...(account.online === undefined ? {} : { online: account.online }),
    })),
  };
}
