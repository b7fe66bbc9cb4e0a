import type { Database, Statement } from "better-sqlite3";
import { type StickerLimits, stickerEvictionSql } from "../sticker-eviction.ts";
import type { KeptSticker, StickerStore } from "../types.ts";

interface StickerRow {
  sha256: string;
  mime: string;
  description: string;
  emotions: string;
  usage_count: number;
  last_used_at: number;
  created_at: number;
  session_id: string | null;
}

type NewSticker = Parameters<StickerStore["keep"]>[0];

/** Emotion words are short and never hold a line break: one per line. */
const EMOTION_SEPARATOR = "\n";

const STICKER_COLUMNS =
  "sha256, mime, description, emotions, usage_count, last_used_at, created_at, session_id";

/**
 * Kept stickers, bytes in the row. Written straight away, not batched: a sticker is kept once
 * per vision call, and the next turn should be able to send it.
 */
export class SqliteStickerStore implements StickerStore {
  readonly #insert: Statement<[string, string, Uint8Array, string, string, number, string]>;
  readonly #evict: Statement<[string, number, number]>;
  readonly #list: Statement<[]>;
  readonly #listIn: Statement<[string]>;
  readonly #count: Statement<[]>;
  readonly #countIn: Statement<[string]>;
  readonly #bytes: Statement<[string]>;
  readonly #used: Statement<[number, string]>;
  readonly #keep: (sticker: NewSticker, limits: StickerLimits) => boolean;

  constructor(db: Database) {
    this.#insert = db.prepare(
      `INSERT INTO stickers (sha256, mime, bytes, description, emotions, created_at, session_id)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
    );
    // Each parameter appears once, in order: anonymous ones bind positionally.
    this.#evict = db.prepare(stickerEvictionSql({ byteLength: "length", param: () => "?" }));
    this.#list = db.prepare(`SELECT ${STICKER_COLUMNS} FROM stickers`);
    this.#listIn = db.prepare(`SELECT ${STICKER_COLUMNS} FROM stickers WHERE session_id = ?`);
    this.#count = db.prepare("SELECT COUNT(*) AS n FROM stickers");
    this.#countIn = db.prepare("SELECT COUNT(*) AS n FROM stickers WHERE session_id = ?");
    this.#bytes = db.prepare("SELECT bytes FROM stickers WHERE sha256 = ?");
    this.#used = db.prepare(
      "UPDATE stickers SET usage_count = usage_count + 1, last_used_at = ? WHERE sha256 = ?",
    );
    this.#keep = db.transaction((sticker: NewSticker, limits: StickerLimits) => {
      const { sha256, mime, bytes, description, emotions, createdAt, sessionId } = sticker;
      const emotionText = emotions.join(EMOTION_SEPARATOR);
      const inserted =
        this.#insert.run(sha256, mime, bytes, description, emotionText, createdAt, sessionId).changes > 0;
      if (inserted) this.#evict.run(sha256, limits.capacity, limits.maxTotalBytes);
      return inserted;
    });
  }

  async keep(sticker: NewSticker, limits: StickerLimits): Promise<boolean> {
    return this.#keep(sticker, limits);
  }

  async list(sessionId?: string): Promise<KeptSticker[]> {
    const rows = (sessionId === undefined ? this.#list.all() : this.#listIn.all(sessionId)) as StickerRow[];
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
    const row = (sessionId === undefined ? this.#count.get() : this.#countIn.get(sessionId)) as { n: number };
    return row.n;
  }

  async bytes(sha256: string): Promise<Uint8Array | undefined> {
    return (this.#bytes.get(sha256) as { bytes: Buffer } | undefined)?.bytes;
  }

  async markUsed(sha256: string, at: number): Promise<void> {
    this.#used.run(at, sha256);
  }
}
