/**
 * The platform-neutral message model. Segment shapes follow OneBot v11 (they are what QQ
 * speaks), with every id kept as a string: platform ids can exceed 2^53 or be negative.
 * Values inside `data` are strings unless a field is documented otherwise; extra fields an
 * implementation adds are kept as they came.
 */

export interface SegmentDataMap {
  text: { text: string };
  face: { id: string };
  image: { file: string; url?: string; summary?: string; sub_type?: string };
  record: { file: string; url?: string };
  video: { file: string; url?: string };
  at: { qq: string; name?: string };
  reply: { id: string };
  forward: { id: string };
  /** A node of a merged forward: either a reference (`id`) or custom content. */
  node: { id?: string; user_id?: string; nickname?: string; content?: Segment[] };
  file: { file: string; name?: string; url?: string; file_id?: string; file_size?: string };
  json: { data: string };
  xml: { data: string };
  poke: { type: string; id: string };
  mface: { emoji_id?: string; emoji_package_id?: string; key?: string; summary?: string };
  markdown: { content: string };
  dice: { result?: string };
  rps: { result?: string };
}

export type KnownSegmentType = keyof SegmentDataMap;

export type KnownSegment = {
  [K in KnownSegmentType]: { type: K; data: SegmentDataMap[K] & Record<string, unknown> };
}[KnownSegmentType];

/** A segment type we do not model. It is carried untouched so it round-trips to the platform. */
export interface UnknownSegment {
  type: string;
  data: Record<string, unknown>;
  unknown: true;
}

export type Segment = KnownSegment | UnknownSegment;

export type SegmentOf<K extends KnownSegmentType> = Extract<KnownSegment, { type: K }>;

export const KNOWN_SEGMENT_TYPES: readonly KnownSegmentType[] = [
  "text",
  "face",
  "image",
  "record",
  "video",
  "at",
  "reply",
  "forward",
  "node",
  "file",
  "json",
  "xml",
  "poke",
  "mface",
  "markdown",
  "dice",
  "rps",
];

export function isKnownSegment(segment: Segment): segment is KnownSegment {
  return !("unknown" in segment);
}

export function textSegment(text: string): SegmentOf<"text"> {
  return { type: "text", data: { text } };
}
