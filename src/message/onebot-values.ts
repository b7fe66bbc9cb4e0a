/** Reading and writing the loosely typed values of OneBot frames (adapters, and context reading fetched messages). */

export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * Ids arrive as JSON numbers, as exact decimal strings (integers beyond 2^53 after lossless
 * parsing) or as strings; everything past the adapter sees them as strings.
 */
export function idToString(value: unknown): string | undefined {
  if (typeof value === "string") return value.length > 0 ? value : undefined;
  if (typeof value === "number" && Number.isInteger(value)) return String(value);
  if (typeof value === "bigint") return value.toString();
  return undefined;
}

/**
 * Ids leave as JSON numbers when that is exact (some implementations only accept numbers for
 * group and user ids), otherwise as strings (19-digit forward ids, non-numeric ids).
 */
export function toWireId(id: string): number | string {
  const asNumber = Number(id);
  return /^-?\d+$/.test(id) && Number.isSafeInteger(asNumber) && String(asNumber) === id ? asNumber : id;
}
