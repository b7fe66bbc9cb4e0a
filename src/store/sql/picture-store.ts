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

/** A file id can be reused for other content: the newest sighting wins. */
const LINK = `INSERT INTO picture_file_ids (file_id, sha256) VALUES (?, ?)
  ON CONFLICT (file_id) DO UPDATE SET sha256 = excluded.sha256`;

/**
 * Picture descriptions. Written straight away, not batched: a row is one model call's worth,
 * rare next to messages, and the next turn should find it. A description and its file id are
 * two commits: a crash between them loses the link only, which the next sighting makes again.
 */
export class SqlPictureStore implements PictureDescriptionStore {
  readonly #sql: SqlDatabase;

  constructor(sql: SqlDatabase) {
    this.#sql = sql;
  }

  async findBySha256(sha256: string): Promise<PictureDescription | undefined> {
    return toDescription(
      await this.#sql.get<DescriptionRow>(
        `SELECT ${DESCRIPTION_COLUMNS} FROM picture_descriptions d WHERE d.sha256 = ?`,
        [sha256],
      ),
    );
  }

  async findByFileId(fileId: string): Promise<PictureDescription | undefined> {
    return toDescription(
      await this.#sql.get<DescriptionRow>(
        `SELECT ${DESCRIPTION_COLUMNS} FROM picture_file_ids f JOIN picture_descriptions d ON d.sha256 = f.sha256
         WHERE f.file_id = ?`,
        [fileId],
      ),
    );
  }

  async save(description: PictureDescription, fileId?: string): Promise<void> {
    const { sha256, kind, model, createdAt } = description;
    await this.#sql.run(
      `INSERT INTO picture_descriptions (sha256, kind, description, model, created_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
      [sha256, kind, description.description, model, createdAt],
    );
    if (fileId !== undefined) await this.linkFileId(fileId, sha256);
  }

  async linkFileId(fileId: string, sha256: string): Promise<void> {
    await this.#sql.run(LINK, [fileId, sha256]);
  }
}

function toDescription(row: DescriptionRow | undefined): PictureDescription | undefined {
  if (!row) return undefined;
  return {
    sha256: row.sha256,
    kind: row.kind === "sticker" ? "sticker" : "image",
    description: row.description,
    model: row.model,
    createdAt: row.created_at,
  };
}
