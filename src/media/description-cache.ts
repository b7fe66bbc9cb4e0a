import type { Logger } from "../log/logger.ts";
import type { PictureDescription, PictureDescriptionStore } from "../store/types.ts";

/**
 * What a media model said of some content (a picture's description, a voice message's
 * transcript), stored once per content: found again by the platform's file id without a fetch,
 * or by the SHA-256 of the fetched content. A failed read or write is one log line naming
 * `what`, and costs one more model call later, never the turn.
 */
export class DescriptionCache {
  constructor(
    private readonly store: PictureDescriptionStore,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** What was stored for the content a file id was last seen to hold, if any. */
  async byFileId(fileId: string | undefined): Promise<PictureDescription | undefined> {
    if (fileId === undefined) return undefined;
    try {
      return await this.store.findByFileId(fileId);
    } catch (error) {
      this.logger.warn({ err: error, fileId }, `reading a ${this.what} failed`);
      return undefined;
    }
  }

  /** What was stored for content `sha256`, if any; `fileId` is linked to it from now on. */
  async byContent(sha256: string, fileId: string | undefined): Promise<PictureDescription | undefined> {
    const stored = await this.store.findBySha256(sha256);
    if (stored && fileId !== undefined) await this.store.linkFileId(fileId, sha256);
    return stored;
  }

  async save(description: PictureDescription, fileId: string | undefined): Promise<void> {
    try {
      await this.store.save(description, fileId);
    } catch (error) {
      this.logger.warn({ err: error, sha256: description.sha256 }, `storing a ${this.what} failed`);
    }
  }
}
