/** How many stickers are kept, and how many bytes they take together (`stickers.*`). */
export interface StickerLimits {
  capacity: number;
  maxTotalBytes: number;
}

/**
 * Deletes the stickers over the limits, the newcomer (parameter 1) always kept: the others in
 * eviction order (least used, then least recently used, then oldest, then by hash in code-point
 * order whatever the database's collation) are dropped while there are more than `capacity`
 * (parameter 2) or they take more than `maxTotalBytes` (parameter 3) together. A row goes when
 * its rank is within the surplus, or when the stickers would still take more than the limit
 * with only the rows before it dropped. `codePointOrder`: see SqlDatabase.
 */
export function stickerEvictionSql(codePointOrder: string): string {
  return `DELETE FROM stickers WHERE sha256 IN (
    SELECT sha256 FROM (
      SELECT sha256,
        ROW_NUMBER() OVER eviction AS eviction_rank,
        SUM(length(bytes)) OVER eviction - length(bytes) AS bytes_before
      FROM stickers WHERE sha256 <> ?
      WINDOW eviction AS (ORDER BY usage_count, last_used_at, created_at, sha256${codePointOrder})
    ) ranked
    WHERE eviction_rank <= (SELECT COUNT(*) FROM stickers) - ?
       OR (SELECT SUM(length(bytes)) FROM stickers) - bytes_before > ?
  )`;
}
