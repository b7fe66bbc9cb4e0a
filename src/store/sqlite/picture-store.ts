import type { Database, Statement } from "better-sqlite3";
import type { PictureDescription, PictureDescriptionStore } from "../types.ts";

export interface DescriptionRow {
  sha256: string;
  kind: string;
  description: string;
  model: string;
  created_at: number;
}

export const DESCRIPTION_COLUMNS = "d.sha256, d.kind, d.description, d.model, d.created_at";

/**
 * Picture descriptions. Written straight away, not batched: a row is one model call's worth,
 * rare next to messages, and the next turn should find it.
 */
export class SqlitePictureStore implements PictureDescriptionStore {
  readonly #bySha256: Statement<[string]>;
  readonly #byFileId: Statement<[string]>;
  readonly #insert: Statement<[string, string, string, string, number]>;
  readonly #link: Statement<[string, string]>;

  constructor(db: Database) {
    this.#bySha256 = db.prepare(
      `SELECT ${DESCRIPTION_COLUMNS} FROM picture_descriptions d WHERE d.sha256 = ?`,
    );
    this.#byFileId = db.prepare(
      `SELECT ${DESCRIPTION_COLUMNS} FROM picture_file_ids f JOIN picture_descriptions d ON d.sha256 = f.sha256 WHERE f.file_id = ?`,
    );
    this.#insert = db.prepare(
      `INSERT INTO picture_descriptions (sha256, kind, description, model, created_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
    );
    // A file id can be reused for other content: the newest sighting wins.
    this.#link = db.prepare(
      "INSERT INTO picture_file_ids (file_id, sha256) VALUES (?, ?) ON CONFLICT (file_id) DO UPDATE SET sha256 = excluded.sha256",
    );
  }

  async findBySha256(sha256: string): Promise<PictureDescription | undefined> {
    return toDescription(this.#bySha256.get(sha256) as DescriptionRow | undefined);
  }

  async findByFileId(fileId: string): Promise<PictureDescription | undefined> {
    return toDescription(this.#byFileId.get(fileId) as DescriptionRow | undefined);
  }

  async save(description: PictureDescription, fileId?: string): Promise<void> {
    const { sha256, kind, model, createdAt } = description;
    this.#insert.run(sha256, kind, description.description, model, createdAt);
    if (fileId !== undefined) this.#link.run(fileId, sha256);
  }

  async linkFileId(fileId: string, sha256: string): Promise<void> {
    this.#link.run(fileId, sha256);
  }
}

export function toDescription(row: DescriptionRow | undefined): PictureDescription | undefined {
  if (!row) return undefined;
  return {
    sha256: row.sha256,
    kind: row.kind === "sticker" ? "sticker" : "image",
    description: row.description,
    model: row.model,
    createdAt: row.created_at,
  };
}
