import { type StickerLimits, stickerEvictionSql } from "../sticker-eviction.ts";
import type { KeptSticker, StickerStore } from "../types.ts";
import type { SqlDatabase } from "./sql-database.ts";

interface StickerRow {
  sha256: string;
  mime: string;
  description: string;
  /** One word per line (EMOTION_SEPARATOR), on every backend. */
  emotions: string;
  usage_count: number;
  last_used_at: number;
  created_at: number;
  session_id: string | null;
}

type NewSticker = Parameters<StickerStore["keep"]>[0];

/** Emotion words never hold whitespace (the describer splits on it): one per line. */
const EMOTION_SEPARATOR = "\n";

const STICKER_COLUMNS =
  "sha256, mime, description, emotions, usage_count, last_used_at, created_at, session_id";

/**
 * Kept stickers, bytes in the row. Written straight away, not batched: a sticker is kept once
 * per vision call, and the next turn should be able to send it.
 */
export class SqlStickerStore implements StickerStore {
  readonly #sql: SqlDatabase;
  readonly #evict: string;

  constructor(sql: SqlDatabase) {
    this.#sql = sql;
    this.#evict = stickerEvictionSql(sql.codePointOrder);
  }

  /**
   * The newcomer and the eviction it causes are two commits: a crash between them leaves the
   * stickers over their limits by one, which the next sticker kept evicts.
   */
  async keep(sticker: NewSticker, limits: StickerLimits): Promise<boolean> {
    const { sha256, mime, bytes, description, emotions, createdAt, sessionId } = sticker;
    const inserted = await this.#sql.run(
      `INSERT INTO stickers (sha256, mime, bytes, description, emotions, created_at, session_id)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
      [sha256, mime, bytes, description, emotions.join(EMOTION_SEPARATOR), createdAt, sessionId],
    );
    if (inserted === 0) return false;
    await this.#sql.run(this.#evict, [sha256, limits.capacity, limits.maxTotalBytes]);
    return true;
  }

  async list(sessionId?: string): Promise<KeptSticker[]> {
    const rows =
      sessionId === undefined
        ? await this.#sql.all<StickerRow>(`SELECT ${STICKER_COLUMNS} FROM stickers`)
        : await this.#sql.all<StickerRow>(`SELECT ${STICKER_COLUMNS} FROM stickers WHERE session_id = ?`, [
            sessionId,
          ]);
    return rows.map((row) => ({
      sha256: row.sha256,
      mime: row.mime,
      description: row.description,
      emotions: row.emotions === "" ? [] : row.emotions.split(EMOTION_SEPARATOR),
      usageCount: row.usage_count,
      lastUsedAt: row.last_used_at,
      createdAt: row.created_at,
      ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    }));
  }

  async count(sessionId?: string): Promise<number> {
    const row =
      sessionId === undefined
        ? await this.#sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM stickers")
        : await this.#sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM stickers WHERE session_id = ?", [
            sessionId,
          ]);
    return row?.n ?? 0;
  }

  async bytes(sha256: string): Promise<Uint8Array | undefined> {
    return (await this.#sql.get<{ bytes: Buffer }>("SELECT bytes FROM stickers WHERE sha256 = ?", [sha256]))
      ?.bytes;
  }

  async markUsed(sha256: string, at: number): Promise<void> {
    await this.#sql.run(
      "UPDATE stickers SET usage_count = usage_count + 1, last_used_at = ? WHERE sha256 = ?",
      [at, sha256],
    );
  }
}
