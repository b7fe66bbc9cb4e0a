/**
 * The platform-neutral message model. Segment shapes follow OneBot v11 (they are what QQ
 * speaks), with every id kept as a string: platform ids can exceed 2^53 or be negative.
 * Values inside `data` are strings unless a field is documented otherwise; extra fields an
 * implementation adds are kept as they came.
 */

export interface SegmentDataMap {
  text: { text: string };
  face: { id: string };
  /** `sub_type` (NapCat, SnowLuma) or `subType` (go-cqhttp, Lagrange, LLOneBot): "1" is a sticker. */
  image: { file: string; url?: string; summary?: string; sub_type?: string; subType?: string };
  record: { file: string; url?: string };
  video: { file: string; url?: string };
  at: { qq: string; name?: string };
  reply: { id: string };
  forward: { id: string };
  /** A node of a merged forward: either a reference (`id`) or custom content. */
  node: { id?: string; user_id?: string; nickname?: string; content?: Segment[] };
  /**
   * The name is in `file` (NapCat, LLOneBot), `name` (go-cqhttp, SnowLuma, the bot's own sends)
   * or `file_name` (Lagrange); the size in `file_size` or `size`, in bytes.
   */
  file: {
    file?: string;
    name?: string;
    file_name?: string;
    url?: string;
    file_id?: string;
    file_size?: string;
    size?: string;
  };
  json: { data: string };
  xml: { data: string };
  /** `{type, id}` (NapCat), `{qq, id}` (LLOneBot) or `{type}` alone (SnowLuma). */
  poke: { type?: string; id?: string; qq?: string };
  mface: { emoji_id?: string; emoji_package_id?: string; key?: string; summary?: string; name?: string };
  markdown: { content: string };
  /** The face shown: `result` (NapCat, LLOneBot) or `value` (go-cqhttp); Lagrange sends neither. */
  dice: { result?: string; value?: string };
  rps: { result?: string; value?: string };
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

export function isKnownSegmentType(type: string): type is KnownSegmentType {
  return (KNOWN_SEGMENT_TYPES as readonly string[]).includes(type);
}

interface ModelFields {
  required: readonly string[];
  optional: readonly string[];
}

/** The string fields SegmentDataMap declares for each known type (node `content` aside). */
const MODEL_FIELDS: Record<KnownSegmentType, ModelFields> = {
  text: { required: ["text"], optional: [] },
  face: { required: ["id"], optional: [] },
  image: { required: ["file"], optional: ["url", "summary", "sub_type", "subType"] },
  record: { required: ["file"], optional: ["url"] },
  video: { required: ["file"], optional: ["url"] },
  at: { required: ["qq"], optional: ["name"] },
  reply: { required: ["id"], optional: [] },
  forward: { required: ["id"], optional: [] },
  node: { required: [], optional: ["id", "user_id", "nickname"] },
  file: { required: [], optional: ["file", "name", "file_name", "url", "file_id", "file_size", "size"] },
  json: { required: ["data"], optional: [] },
  xml: { required: ["data"], optional: [] },
  poke: { required: [], optional: ["type", "id", "qq"] },
  mface: { required: [], optional: ["emoji_id", "emoji_package_id", "key", "summary", "name"] },
  markdown: { required: ["content"], optional: [] },
  dice: { required: [], optional: ["result", "value"] },
  rps: { required: [], optional: ["result", "value"] },
};

/**
 * Builds a segment from its type and data, where values are already in model form (scalars
 * as strings, node `content` as Segment[]). A known type whose data does not fit
 * SegmentDataMap is kept as an UnknownSegment, so it still goes back to the platform intact.
 */
export function makeSegment(type: string, data: Record<string, unknown>): Segment {
  if (isKnownSegmentType(type) && fitsModel(type, data)) {
    return { type, data } as KnownSegment;
  }
  return { type, data, unknown: true };
}

function fitsModel(type: KnownSegmentType, data: Record<string, unknown>): boolean {
  const fields = MODEL_FIELDS[type];
  if (!fields.required.every((field) => typeof data[field] === "string")) return false;
  if (!fields.optional.every((field) => data[field] === undefined || typeof data[field] === "string")) {
    return false;
  }
  return type !== "node" || data.content === undefined || Array.isArray(data.content);
}
