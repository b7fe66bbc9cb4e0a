import { describe, expect, it } from "vitest";
import { consoleAccounts } from "../../src/api/known-accounts.ts";

const nowhere = () => false;
const remembered = (selfId: string, lastConnectedAt = 1_000) => ({
  adapterId: "qq",
  selfId,
  lastConnectedAt,
});

describe("the accounts the console lists", () => {
  it("lists connected and remembered gone accounts, and hides a dismissed one that is still in memory", () => {
    const live = [
      { id: "qq", selfId: "1", connected: true },
      { id: "qq", selfId: "2", connected: false },
      { id: "qq", selfId: "3", connected: false },
    ];
    // 3 was dismissed: no longer remembered, though this process saw it.
    expect(consoleAccounts(live, [remembered("1", 5), remembered("2"), remembered("4")], nowhere)).toEqual([
      { id: "qq", selfId: "1", connected: true, lastConnectedAt: 5 },
      { id: "qq", selfId: "2", connected: false, lastConnectedAt: 1_000 },
      { id: "qq", selfId: "4", connected: false, lastConnectedAt: 1_000 },
    ]);
  });

  it("keeps an adapter's waiting entry when it has nothing to list", () => {
    const waiting = [{ id: "qq", selfId: null, connected: false }];
    expect(consoleAccounts(waiting, [], nowhere)).toEqual(waiting);
    expect(consoleAccounts([{ id: "qq", selfId: "3", connected: false }], [], nowhere)).toEqual(waiting);
  });

  it("leaves an account connected to another instance of a cluster to that instance's console", () => {
    const live = [{ id: "qq", selfId: null, connected: false }];
    const elsewhere = (_adapter: string, selfId: string) => selfId === "7";
    expect(consoleAccounts(live, [remembered("7"), remembered("8")], elsewhere)).toEqual([
      { id: "qq", selfId: "8", connected: false, lastConnectedAt: 1_000 },
    ]);
  });
});
