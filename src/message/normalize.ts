/**
 * Turns the `message` field of a OneBot event (segment array or CQ string, whatever the
 * implementation's setting says) into the Segment model. Never throws: junk is dropped,
 * segments we do not model are carried untouched.
 */

import { isRecord } from "../util/values.ts";
import { decodeCq, MAX_NODE_DEPTH } from "./cq-codec.ts";
import {
  isKnownSegment,
  isKnownSegmentType,
  type KnownSegmentType,
  makeSegment,
  type Segment,
} from "./segment.ts";

export function normalizeSegments(raw: unknown): Segment[] {
  return normalizeList(raw, 0);
}

/** `depth`: node levels around `raw`; deeper node content is carried untouched, not recursed into. */
function normalizeList(raw: unknown, depth: number): Segment[] {
  if (typeof raw === "string") return decodeCq(raw, depth);
  // Some implementations put a lone segment object where a list belongs.
  const entries: unknown[] = Array.isArray(raw) ? raw : [raw];
  const segments: Segment[] = [];
  for (const entry of entries) {
    const segment = normalizeSegment(entry, depth);
    if (segment !== undefined) segments.push(segment);
  }
  return segments;
}

/** One `{type, data}` entry; undefined when it is not a segment at all. */
function normalizeSegment(entry: unknown, depth: number): Segment | undefined {
  if (!isRecord(entry) || typeof entry.type !== "string" || entry.type === "") return undefined;
  const { type } = entry;
  const data = entry.data ?? {};
  if (!isRecord(data)) return undefined;
  if (!isKnownSegmentType(type)) return { type, data, unknown: true };
  const segment = makeSegment(type, normalizeKnownData(type, data, depth));
  return isKnownSegment(segment) ? segment : { type, data, unknown: true };
}

/** Scalars become strings (ids may arrive as numbers); null means absent; extra fields stay. */
function normalizeKnownData(
  type: KnownSegmentType,
  data: Record<string, unknown>,
  depth: number,
): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === null || value === undefined) continue;
    entries.push([key, normalizeValue(type, key, value, depth)]);
  }
  // fromEntries defines own properties, so a key like `__proto__` stays plain data.
  return Object.fromEntries(entries);
}

function normalizeValue(type: KnownSegmentType, key: string, value: unknown, depth: number): unknown {
  if (type === "node" && key === "content") {
    const nestable = typeof value === "string" || Array.isArray(value);
    return nestable && depth < MAX_NODE_DEPTH ? normalizeList(value, depth + 1) : value;
  }
  // Some implementations hand the card of a json segment over already parsed.
  if (type === "json" && key === "data" && typeof value === "object") return stringifyCard(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value);
  }
  return value;
}

/** A card that cannot be serialised stays an object, which makes its segment unknown. */
function stringifyCard(card: unknown): unknown {
  try {
    return JSON.stringify(card);
  } catch {
    return card;
  }
}
