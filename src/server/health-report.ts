import type { StorageStatus } from "../store/types.ts";

/** One platform account as `/healthz` and the console report it. */
export interface AdapterHealth {
  id: string;
  /** Null while no account has identified on this adapter. */
  selfId: string | null;
  connected: boolean;
  online?: boolean;
}

/** `GET /healthz`. Type-only, no runtime imports: the console's front end imports it too. */
export interface HealthReport {
  status: "ok";
  adapters: AdapterHealth[];
  /** Whether writes reach the database; `degraded` while they are held in memory and retried. */
  storage: StorageStatus;
}
