import type { KnownAccount, KnownAccountStore } from "../types.ts";
import type { SqlDatabase } from "./sql-database.ts";

interface KnownAccountRow {
  adapter_id: string;
  self_id: string;
  last_connected_at: number;
}

/** Written straight away: one row per account, changed only when it connects or is dismissed. */
export class SqlKnownAccountStore implements KnownAccountStore {
  readonly #sql: SqlDatabase;

  constructor(sql: SqlDatabase) {
    this.#sql = sql;
  }

  async remember({ adapterId, selfId, lastConnectedAt }: KnownAccount): Promise<void> {
    await this.#sql.run(
      `INSERT INTO known_accounts (adapter_id, self_id, last_connected_at) VALUES (?, ?, ?)
       ON CONFLICT (adapter_id, self_id) DO UPDATE SET last_connected_at = excluded.last_connected_at`,
      [adapterId, selfId, lastConnectedAt],
    );
  }

  async list(): Promise<KnownAccount[]> {
    const rows = await this.#sql.all<KnownAccountRow>(
      `SELECT adapter_id, self_id, last_connected_at FROM known_accounts
       ORDER BY adapter_id ${this.#sql.codePointOrder}, self_id ${this.#sql.codePointOrder}`,
    );
    return rows.map((row) => ({
      adapterId: row.adapter_id,
      selfId: row.self_id,
      lastConnectedAt: Number(row.last_connected_at),
    }));
  }

  async forget(adapterId: string, selfId: string): Promise<boolean> {
    return (
      (await this.#sql.run("DELETE FROM known_accounts WHERE adapter_id = ? AND self_id = ?", [
        adapterId,
        selfId,
      ])) > 0
    );
  }
}
