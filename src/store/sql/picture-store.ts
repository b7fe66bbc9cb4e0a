import type { PictureDescription, PictureDescriptionStore } from "../types.ts";
import type { SqlDatabase } from "./sql-database.ts";

interface DescriptionRow {
  sha256: string;
  kind: string;
  description: string;
  model: string;
  created_at: number;
}

const DESCRIPTION_COLUMNS = "d.sha256, d.kind, d.description, d.model, d.created_at";

/** The tables of one cache: descriptions by content, and the file ids seen holding each content. */
export interface DescriptionTables {
  descriptions: "picture_descriptions" | "voice_transcripts";
  fileIds: "picture_file_ids" | "voice_file_ids";
}

export const PICTURE_TABLES: DescriptionTables = {
  descriptions: "picture_descriptions",
  fileIds: "picture_file_ids",
};
export const VOICE_TABLES: DescriptionTables = {
  descriptions: "voice_transcripts",
  fileIds: "voice_file_ids",
};

/**
 * Picture descriptions (PICTURE_TABLES), or voice transcripts cached the same way (VOICE_TABLES). Written straight away, not batched: a row is one model call's worth,
 * rare next to messages, and the next turn should find it. A description and its file id are
 * two commits: a crash between them loses the link only, which the next sighting makes again.
 */
export class SqlPictureStore implements PictureDescriptionStore {
  readonly #sql: SqlDatabase;
  readonly #tables: DescriptionTables;

  constructor(sql: SqlDatabase, tables: DescriptionTables = PICTURE_TABLES) {
    this.#sql = sql;
    this.#tables = tables;
  }

  async findBySha256(sha256: string): Promise<PictureDescription | undefined> {
    return toDescription(
      await this.#sql.get<DescriptionRow>(
        `SELECT ${DESCRIPTION_COLUMNS} FROM ${this.#tables.descriptions} d WHERE d.sha256 = ?`,
        [sha256],
      ),
    );
  }

  async findByFileId(fileId: string): Promise<PictureDescription | undefined> {
    return toDescription(
      await this.#sql.get<DescriptionRow>(
        `SELECT ${DESCRIPTION_COLUMNS} FROM ${this.#tables.fileIds} f
         JOIN ${this.#tables.descriptions} d ON d.sha256 = f.sha256 WHERE f.file_id = ?`,
        [fileId],
      ),
    );
  }

  async save(description: PictureDescription, fileId?: string): Promise<void> {
    const { sha256, kind, model, createdAt } = description;
    await this.#sql.run(
      `INSERT INTO ${this.#tables.descriptions} (sha256, kind, description, model, created_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
      [sha256, kind, description.description, model, createdAt],
    );
    if (fileId !== undefined) await this.linkFileId(fileId, sha256);
  }

  async linkFileId(fileId: string, sha256: string): Promise<void> {
    // A file id can be reused for other content: the newest sighting wins.
    await this.#sql.run(
      `INSERT INTO ${this.#tables.fileIds} (file_id, sha256) VALUES (?, ?)
       ON CONFLICT (file_id) DO UPDATE SET sha256 = excluded.sha256`,
      [fileId, sha256],
    );
  }
}

function toDescription(row: DescriptionRow | undefined): PictureDescription | undefined {
  if (!row) return undefined;
  return {
    sha256: row.sha256,
    kind: row.kind === "sticker" || row.kind === "voice" ? row.kind : "image",
    description: row.description,
    model: row.model,
    createdAt: row.created_at,
  };
}
