import type { Database, Statement } from "better-sqlite3";
import type { KeptSticker, StickerStore } from "../types.ts";

interface StickerRow {
  sha256: string;
  mime: string;
  description: string;
  emotions: string;
  usage_count: number;
  last_used_at: number;
  created_at: number;
}

/** Emotion words are short and never hold a line break: one per line. */
const EMOTION_SEPARATOR = "\n";

/**
 * Kept stickers, bytes in the row. Written straight away, not batched: a sticker is kept once
 * per vision call, and the next turn should be able to send it.
 */
export class SqliteStickerStore implements StickerStore {
  readonly #insert: Statement<[string, string, Uint8Array, string, string, number]>;
  readonly #evict: Statement<[string, number]>;
  readonly #list: Statement<[]>;
  readonly #count: Statement<[]>;
  readonly #bytes: Statement<[string]>;
  readonly #used: Statement<[number, string]>;
  readonly #keep: (sticker: Parameters<StickerStore["keep"]>[0], capacity: number) => boolean;

  constructor(db: Database) {
    this.#insert = db.prepare(
      `INSERT INTO stickers (sha256, mime, bytes, description, emotions, created_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
    );
    this.#evict = db.prepare(
      `DELETE FROM stickers WHERE sha256 IN (
         SELECT sha256 FROM stickers WHERE sha256 <> ?
         ORDER BY usage_count, last_used_at, created_at LIMIT ?)`,
    );
    this.#list = db.prepare(
      "SELECT sha256, mime, description, emotions, usage_count, last_used_at, created_at FROM stickers",
    );
    this.#count = db.prepare("SELECT COUNT(*) AS n FROM stickers");
    this.#bytes = db.prepare("SELECT bytes FROM stickers WHERE sha256 = ?");
    this.#used = db.prepare(
      "UPDATE stickers SET usage_count = usage_count + 1, last_used_at = ? WHERE sha256 = ?",
    );
    this.#keep = db.transaction((sticker, capacity) => {
      const { sha256, mime, bytes, description, emotions, createdAt } = sticker;
      const inserted =
        this.#insert.run(sha256, mime, bytes, description, emotions.join(EMOTION_SEPARATOR), createdAt)
          .changes > 0;
      if (!inserted) return false;
      const over = this.#countNow() - capacity;
      if (over > 0) this.#evict.run(sha256, over);
      return true;
    });
  }

  async keep(sticker: Parameters<StickerStore["keep"]>[0], capacity: number): Promise<boolean> {
    return this.#keep(sticker, capacity);
  }

  async list(): Promise<KeptSticker[]> {
    return (this.#list.all() as StickerRow[]).map((row) => ({
      sha256: row.sha256,
      mime: row.mime,
      description: row.description,
      emotions: row.emotions === "" ? [] : row.emotions.split(EMOTION_SEPARATOR),
      usageCount: row.usage_count,
      lastUsedAt: row.last_used_at,
      createdAt: row.created_at,
    }));
  }

  async count(): Promise<number> {
    return this.#countNow();
  }

  async bytes(sha256: string): Promise<Uint8Array | undefined> {
    return (this.#bytes.get(sha256) as { bytes: Buffer } | undefined)?.bytes;
  }

  async markUsed(sha256: string, at: number): Promise<void> {
    this.#used.run(at, sha256);
  }

  #countNow(): number {
    return (this.#count.get() as { n: number }).n;
  }
}
