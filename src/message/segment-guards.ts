import type { KnownSegmentType, Segment, SegmentOf } from "./segment.ts";

/** Narrows a segment to a known type (an UnknownSegment never matches, even with the same name). */
export function isSegment<K extends KnownSegmentType>(
  segment: Segment | undefined,
  type: K,
): segment is SegmentOf<K> {
  return segment !== undefined && segment.type === type && !("unknown" in segment);
}
