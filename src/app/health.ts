import { CONSOLE_PLATFORM } from "../adapters/console/console-adapter.ts";
import type { ChatAdapter } from "../adapters/types.ts";
import { STDIO_PLATFORM } from "../message/message-source.ts";
import type { HealthReport } from "../server/health-report.ts";
import type { Stores } from "../store/types.ts";

/** `/healthz`: each platform account's connection and the storage state. */
export function healthReport(adapters: Map<string, ChatAdapter>, stores: Stores): HealthReport {
  const report: HealthReport = { status: "ok", adapters: [], storage: stores.status() };
  for (const adapter of adapters.values()) {
    // Always there, not platform connections: the console playground and stdio channel plugins.
    if (adapter.platform === CONSOLE_PLATFORM || adapter.platform === STDIO_PLATFORM) continue;
    const accounts = adapter.accounts();
    if (accounts.length === 0) report.adapters.push({ id: adapter.id, selfId: null, connected: false });
    for (const account of accounts) {
      report.adapters.push({
        id: adapter.id,
        selfId: account.selfId,
        connected: account.connected,
        ...(account.online === undefined ? {} : { online: account.online }),
        ...(account.rateLimitedUntil === undefined ? {} : { rateLimitedUntil: account.rateLimitedUntil }),
      });
    }
  }
  return report;
}
