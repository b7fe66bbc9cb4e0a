import { DESCRIPTION_COLUMNS, type DescriptionRow, toDescription } from "../sqlite/picture-store.ts";
import type { PictureDescription, PictureDescriptionStore } from "../types.ts";
import type { PgDatabase, PgQuery } from "./database.ts";

/** A file id can be reused for other content: the newest sighting wins. */
const LINK = `INSERT INTO picture_file_ids (file_id, sha256) VALUES ($1, $2)
  ON CONFLICT (file_id) DO UPDATE SET sha256 = excluded.sha256`;

/**
 * Picture descriptions on PostgreSQL. Written straight away, not batched: a row is one model
 * call's worth, rare next to messages, and the next turn should find it.
 */
export class PgPictureStore implements PictureDescriptionStore {
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  async findBySha256(sha256: string): Promise<PictureDescription | undefined> {
    const rows = await this.#db.query<DescriptionRow>(
      `SELECT ${DESCRIPTION_COLUMNS} FROM picture_descriptions d WHERE d.sha256 = $1`,
      [sha256],
    );
    return toDescription(rows[0]);
  }

  async findByFileId(fileId: string): Promise<PictureDescription | undefined> {
    const rows = await this.#db.query<DescriptionRow>(
      `SELECT ${DESCRIPTION_COLUMNS} FROM picture_file_ids f JOIN picture_descriptions d ON d.sha256 = f.sha256
       WHERE f.file_id = $1`,
      [fileId],
    );
    return toDescription(rows[0]);
  }

  async save(description: PictureDescription, fileId?: string): Promise<void> {
    const { sha256, kind, model, createdAt } = description;
    await this.#db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO picture_descriptions (sha256, kind, description, model, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sha256) DO NOTHING`,
        [sha256, kind, description.description, model, createdAt],
      );
      if (fileId !== undefined) await link(tx, fileId, sha256);
    });
  }

  async linkFileId(fileId: string, sha256: string): Promise<void> {
    await link(this.#db, fileId, sha256);
  }
}

async function link(db: PgQuery, fileId: string, sha256: string): Promise<void> {
  await db.query(LINK, [fileId, sha256]);
}
