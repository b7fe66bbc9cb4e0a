import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ConnectInfo, ConsoleStatus } from "../../src/api/types.ts";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { waitFor } from "../support/wait.ts";

const TOKEN = "accounts-test-token";
const FIRST = "10000";
const SECOND = "10001";

type Account = ConnectInfo["adapters"][number]["accounts"][number];

/** The accounts the Connect QQ page lists for the default adapter. */
async function listed(bot: BotHarness): Promise<Account[]> {
  const answer = await apiClient(bot.baseUrl, TOKEN).get<ConnectInfo>("/api/connect");
  return answer.body.adapters[0]?.accounts ?? [];
}

async function waitForListed(bot: BotHarness, want: (accounts: Account[]) => boolean, what: string) {
  let accounts: Account[] = [];
  await waitFor(
    async () => {
      accounts = await listed(bot);
      return want(accounts);
    },
    8_000,
    what,
  );
  return accounts;
}

describe("accounts that are gone, dismissed from the console (real sockets, real SQLite)", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  it("lists a gone account after a restart until it is dismissed, and again once it reconnects", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-accounts-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const config = { server: { token: TOKEN } };
    let bot = await startBot({ dataDir, config });
    cleanups.push(() => bot.stop());
    const first = new OneBotStandIn({ selfId: FIRST });
    const second = new OneBotStandIn({ selfId: SECOND });
    cleanups.push(
      () => first.close(),
      () => second.close(),
    );
    await first.connectReverse(bot.wsUrl);
    await second.connectReverse(bot.wsUrl);
    const api = () => apiClient(bot.baseUrl, TOKEN);

    const both = await waitForListed(
      bot,
      (accounts) => accounts.filter((account) => account.connected && account.lastConnectedAt).length === 2,
      "both accounts connected and remembered",
    );
    expect(both.map((account) => account.selfId).sort()).toEqual([FIRST, SECOND]);

    // A connected account is not dismissed; the route is token-guarded like the rest of /api/.
    const refused = await api().request("DELETE", `/api/connect/accounts/qq/${FIRST}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: "connected" });
    const anonymous = await apiClient(bot.baseUrl).request("DELETE", `/api/connect/accounts/qq/${FIRST}`);
    expect(anonymous.status).toBe(401);

    // The second account goes away: listed as gone, with when it last connected.
    await second.close();
    const gone = await waitForListed(
      bot,
      (accounts) => accounts.some((account) => account.selfId === SECOND && !account.connected),
      "the second account listed as disconnected",
    );
    expect(gone.find((account) => account.selfId === SECOND)?.lastConnectedAt).toBeGreaterThan(0);

    // After a restart, the first account reconnects and the second is still listed as gone.
    await first.close();
    await bot.stop();
    bot = await startBot({ dataDir, config });
    const firstAgain = new OneBotStandIn({ selfId: FIRST });
    cleanups.push(() => firstAgain.close());
    await firstAgain.connectReverse(bot.wsUrl);
    const afterRestart = await waitForListed(
      bot,
      (accounts) => accounts.some((account) => account.selfId === FIRST && account.connected),
      "the first account connected after the restart",
    );
    expect(afterRestart).toContainEqual(expect.objectContaining({ selfId: SECOND, connected: false }));
    const status = (await api().get<ConsoleStatus>("/api/status")).body;
    expect(status.adapters).toContainEqual(expect.objectContaining({ selfId: SECOND, connected: false }));

    // Dismissed: gone from the page and the header, and it stays gone over another restart.
    const dismissed = await api().request("DELETE", `/api/connect/accounts/qq/${SECOND}`);
    expect(dismissed).toEqual({ status: 200, body: { dismissed: true } });
    expect((await listed(bot)).map((account) => account.selfId)).toEqual([FIRST]);
    expect((await api().get<ConsoleStatus>("/api/status")).body.adapters.map((a) => a.selfId)).toEqual([
      FIRST,
    ]);
    const again = await api().request("DELETE", `/api/connect/accounts/qq/${SECOND}`);
    expect(again.status).toBe(404);
    await firstAgain.close();
    await bot.stop();
    bot = await startBot({ dataDir, config });
    await waitForListed(
      bot,
      (accounts) => accounts.some((account) => account.selfId === FIRST && !account.connected),
      "the first account remembered as gone after the second restart",
    );
    expect((await listed(bot)).map((account) => account.selfId)).toEqual([FIRST]);

    // The dismissed account connects again: it is listed again.
    const secondAgain = new OneBotStandIn({ selfId: SECOND });
    cleanups.push(() => secondAgain.close());
    await secondAgain.connectReverse(bot.wsUrl);
    const back = await waitForListed(
      bot,
      (accounts) => accounts.some((account) => account.selfId === SECOND && account.connected),
      "the dismissed account back once it connects",
    );
    expect(back.map((account) => account.selfId).sort()).toEqual([FIRST, SECOND]);
  });

  it("keeps the waiting entry of an adapter that never had an account", async () => {
    const bot = await startBot({ config: { server: { token: TOKEN } } });
    cleanups.push(() => bot.dispose());
    expect(await listed(bot)).toEqual([]);
    const status = (await apiClient(bot.baseUrl, TOKEN).get<ConsoleStatus>("/api/status")).body;
    expect(status.adapters).toEqual([{ id: "qq", selfId: null, connected: false }]);
    const missing = await apiClient(bot.baseUrl, TOKEN).request("DELETE", "/api/connect/accounts/qq/42");
    expect(missing.status).toBe(404);
  });
});
