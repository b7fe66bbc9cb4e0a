import type { AccountStatus } from "../types.ts";

/** Every self id this adapter has seen, with whether it is connected and (per heartbeat) online. */
export class AccountTable {
  readonly #accounts = new Map<string, AccountStatus>();

  list(): AccountStatus[] {
    return [...this.#accounts.values()].map((account) => ({ ...account }));
  }

  get(selfId: string): AccountStatus {
    return { ...(this.#accounts.get(selfId) ?? { selfId, connected: false }) };
  }

  /** Online state is only meaningful while connected, so it is forgotten on disconnect. */
  setConnected(selfId: string, connected: boolean): AccountStatus {
    const account = this.#accounts.get(selfId) ?? { selfId, connected };
    account.connected = connected;
    if (!connected) delete account.online;
    this.#accounts.set(selfId, account);
    return { ...account };
  }

  /** Returns true when the value changed. */
  setOnline(selfId: string, online: boolean): boolean {
    const account = this.#accounts.get(selfId);
    if (!account || account.online === online) return false;
    account.online = online;
    return true;
  }
}
