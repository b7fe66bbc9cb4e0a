import type { KeptSticker, StickerStore } from "../types.ts";
import type { PgDatabase } from "./database.ts";

interface StickerRow {
  sha256: string;
  mime: string;
  description: string;
  emotions: string[];
  usage_count: number;
  last_used_at: number;
  created_at: number;
}

type NewSticker = Parameters<StickerStore["keep"]>[0];

/**
 * Kept stickers on PostgreSQL, bytes in the row. Written straight away, not batched: a sticker
 * is kept once per vision call, and the next turn should be able to send it.
 */
export class PgStickerStore implements StickerStore {
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  async keep(sticker: NewSticker, capacity: number): Promise<boolean> {
    const { sha256, mime, bytes, description, emotions, createdAt } = sticker;
    return this.#db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO stickers (sha256, mime, bytes, description, emotions, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256) DO NOTHING RETURNING sha256`,
        [sha256, mime, bytes, description, emotions, createdAt],
      );
      if (inserted.length === 0) return false;
      // The newcomer always stays; beyond the capacity the least used (then least recently
      // used, then oldest) others go.
      await tx.query(
        `DELETE FROM stickers WHERE sha256 IN (
           SELECT sha256 FROM stickers WHERE sha256 <> $1
           ORDER BY usage_count, last_used_at, created_at, sha256
           LIMIT GREATEST((SELECT COUNT(*) FROM stickers) - $2, 0))`,
        [sha256, capacity],
      );
      return true;
    });
  }

  async list(): Promise<KeptSticker[]> {
    const rows = await this.#db.query<StickerRow>(
      "SELECT sha256, mime, description, emotions, usage_count, last_used_at, created_at FROM stickers",
    );
    return rows.map((row) => ({
      sha256: row.sha256,
      mime: row.mime,
      description: row.description,
      emotions: row.emotions,
      usageCount: row.usage_count,
      lastUsedAt: row.last_used_at,
      createdAt: row.created_at,
    }));
  }

  async count(): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>("SELECT COUNT(*) AS n FROM stickers");
    return row?.n ?? 0;
  }

  async bytes(sha256: string): Promise<Uint8Array | undefined> {
    const [row] = await this.#db.query<{ bytes: Buffer }>("SELECT bytes FROM stickers WHERE sha256 = $1", [
      sha256,
    ]);
    return row?.bytes;
  }

  async markUsed(sha256: string, at: number): Promise<void> {
    await this.#db.query(
      "UPDATE stickers SET usage_count = usage_count + 1, last_used_at = $1 WHERE sha256 = $2",
      [at, sha256],
    );
  }
}
