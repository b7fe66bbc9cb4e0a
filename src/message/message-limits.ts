/**
 * Bounds on the `message` of an inbound event, checked before it is decoded: everything after
 * decoding (storage, prompts, JSON.stringify) walks segments recursively, so absurd nesting or
 * counts are refused here, at the edge, instead of failing somewhere later.
 */

/** JSON levels: a nested forward costs about four, so real messages stay far below. */
export const MAX_MESSAGE_DEPTH = 128;

/** Segments (array entries and CQ codes, at any depth); a real message has at most hundreds. */
export const MAX_MESSAGE_SEGMENTS = 10_000;

/** Why `raw` (a segment array, a CQ string or anything else) is too large to decode; undefined when it is fine. */
export function messageLimitProblem(raw: unknown): string | undefined {
  let segments = 0;
  // Iterative, so the check itself cannot overflow the stack it protects.
  const pending: Array<{ value: unknown; depth: number }> = [{ value: raw, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (typeof value === "string") segments += countCqCodes(value);
    else if (Array.isArray(value)) segments += value.length;
    if (segments > MAX_MESSAGE_SEGMENTS) return `more than ${MAX_MESSAGE_SEGMENTS} segments`;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_MESSAGE_DEPTH) return `nested deeper than ${MAX_MESSAGE_DEPTH} levels`;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      pending.push({ value: child, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Codes at any nesting level: nested ones are escaped (`&#91;CQ:`), so the marker is `CQ:`. */
function countCqCodes(text: string): number {
  let count = 0;
  for (let at = text.indexOf("CQ:"); at !== -1; at = text.indexOf("CQ:", at + 3)) count++;
  return count;
}
