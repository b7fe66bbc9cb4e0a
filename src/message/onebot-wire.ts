/** The Segment model as OneBot v11 expects it in a send action's `message` array. */

import { isKnownSegment, type Segment } from "./segment.ts";

export interface OneBotSegment {
  type: string;
  data: Record<string, unknown>;
}

/**
 * Ids stay strings: every implementation we target accepts them, and numbers would lose the
 * digits of ids beyond 2^53. Unknown segments go out exactly as they came in.
 */
export function toOneBotSegments(segments: Segment[]): OneBotSegment[] {
  return segments.map(toOneBotSegment);
}

function toOneBotSegment(segment: Segment): OneBotSegment {
  if (isKnownSegment(segment) && segment.type === "node" && segment.data.content !== undefined) {
    return { type: "node", data: { ...segment.data, content: toOneBotSegments(segment.data.content) } };
  }
  return { type: segment.type, data: segment.data };
}
