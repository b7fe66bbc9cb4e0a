/** How many stickers are kept, and how many bytes they take together (`stickers.*`). */
export interface StickerLimits {
  capacity: number;
  maxTotalBytes: number;
}

/** What the SQL dialects of the two backends spell differently. */
interface Dialect {
  /** A BLOB's (bytea's) size in bytes. */
  byteLength: string;
  /** The `n`-th (1-based) statement parameter; each is used once, in order. */
  param: (n: number) => string;
}

/**
 * Deletes the stickers over the limits, the newcomer (parameter 1) always kept: the others in
 * eviction order (least used, then least recently used, then oldest) are dropped while there
 * are more than `capacity` (parameter 2) or they take more than `maxTotalBytes` (parameter 3)
 * together. A row goes when its rank is within the surplus, or when the stickers would still
 * take more than the limit with only the rows before it dropped.
 */
export function stickerEvictionSql({ byteLength, param }: Dialect): string {
  return `DELETE FROM stickers WHERE sha256 IN (
    SELECT sha256 FROM (
      SELECT sha256,
        ROW_NUMBER() OVER eviction AS eviction_rank,
        SUM(${byteLength}(bytes)) OVER eviction - ${byteLength}(bytes) AS bytes_before
      FROM stickers WHERE sha256 <> ${param(1)}
      WINDOW eviction AS (ORDER BY usage_count, last_used_at, created_at, sha256)
    ) ranked
    WHERE eviction_rank <= (SELECT COUNT(*) FROM stickers) - ${param(2)}
       OR (SELECT SUM(${byteLength}(bytes)) FROM stickers) - bytes_before > ${param(3)}
  )`;
}
