import { type StickerLimits, stickerEvictionSql } from "../sticker-eviction.ts";
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
  session_id: string | null;
}

type NewSticker = Parameters<StickerStore["keep"]>[0];

const STICKER_COLUMNS =
  "sha256, mime, description, emotions, usage_count, last_used_at, created_at, session_id";

const EVICT = stickerEvictionSql({ byteLength: "octet_length", param: (n) => `$${n}` });

/**
 * Kept stickers on PostgreSQL, bytes in the row. Written straight away, not batched: a sticker
 * is kept once per vision call, and the next turn should be able to send it.
 */
export class PgStickerStore implements StickerStore {
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  async keep(sticker: NewSticker, limits: StickerLimits): Promise<boolean> {
    const { sha256, mime, bytes, description, emotions, createdAt, sessionId } = sticker;
    return this.#db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO stickers (sha256, mime, bytes, description, emotions, created_at, session_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (sha256) DO NOTHING RETURNING sha256`,
        [sha256, mime, bytes, description, emotions, createdAt, sessionId],
      );
      if (inserted.length === 0) return false;
      await tx.query(EVICT, [sha256, limits.capacity, limits.maxTotalBytes]);
      return true;
    });
  }

  async list(sessionId?: string): Promise<KeptSticker[]> {
    const rows =
      sessionId === undefined
        ? await this.#db.query<StickerRow>(`SELECT ${STICKER_COLUMNS} FROM stickers`)
        : await this.#db.query<StickerRow>(`SELECT ${STICKER_COLUMNS} FROM stickers WHERE session_id = $1`, [
            sessionId,
          ]);
    return rows.map((row) => ({
      sha256: row.sha256,
      mime: row.mime,
      description: row.description,
      emotions: row.emotions,
      usageCount: row.usage_count,
      lastUsedAt: row.last_used_at,
      createdAt: row.created_at,
      ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    }));
  }

  async count(sessionId?: string): Promise<number> {
    const [row] =
      sessionId === undefined
        ? await this.#db.query<{ n: number }>("SELECT COUNT(*) AS n FROM stickers")
        : await this.#db.query<{ n: number }>("SELECT COUNT(*) AS n FROM stickers WHERE session_id = $1", [
            sessionId,
          ]);
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
