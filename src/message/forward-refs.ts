/**
 * The merged forwards a message carries: `forward` segments (NapCat also puts the forward's
 * messages inline, in `data.content`, nested levels included) and merged-forward json cards.
 */

import { isMultimsgCard, parseArkCard, residOf } from "./card-text.ts";
import { isKnownSegment, type Segment } from "./segment.ts";

/** One forward: its id for `get_forward_msg` ("" when it has none), and its messages when they came inline. */
export interface ForwardRef {
  id: string;
  /** Raw message entries, read like a `get_forward_msg` answer's. */
  inline?: unknown[];
}

/** The forwards of a message, in message order; a forward id seen twice counts once. */
export function forwardRefs(segments: Segment[]): ForwardRef[] {
  const refs: ForwardRef[] = [];
  const seen = new Set<string>();
  const add = (ref: ForwardRef) => {
    // Without an id or messages there is nothing to read.
    if (ref.id === "" ? !ref.inline?.length : seen.has(ref.id)) return;
    seen.add(ref.id);
    refs.push(ref);
  };
  for (const segment of segments) {
    if (!isKnownSegment(segment)) continue;
    if (segment.type === "forward") {
      const content = segment.data.content;
      add(Array.isArray(content) ? { id: segment.data.id, inline: content } : { id: segment.data.id });
    }
    if (segment.type === "json") {
      const card = parseArkCard(segment.data.data);
      const resid = card !== undefined && isMultimsgCard(card) ? residOf(card) : undefined;
      if (resid !== undefined) add({ id: resid });
    }
  }
  return refs;
}

/** Ids to pass to get_forward_msg, in message order, each once. */
export function extractForwardIds(segments: Segment[]): string[] {
  return forwardRefs(segments)
    .map((ref) => ref.id)
    .filter((id) => id !== "");
}
