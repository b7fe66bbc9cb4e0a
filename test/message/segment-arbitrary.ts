/** fast-check generators for Segment lists in the shape decodeCq produces. */

import fc from "fast-check";
import { KNOWN_SEGMENT_TYPES, type KnownSegmentType, type Segment } from "../../src/message/segment.ts";

/** The string fields of SegmentDataMap, written out again as the tests' own oracle. */
const FIELDS: Record<
  Exclude<KnownSegmentType, "text" | "node">,
  { required: string[]; optional: string[] }
> = {
  face: { required: ["id"], optional: [] },
  image: { required: ["file"], optional: ["url", "summary", "sub_type"] },
  record: { required: ["file"], optional: ["url"] },
  video: { required: ["file"], optional: ["url"] },
  at: { required: ["qq"], optional: ["name"] },
  reply: { required: ["id"], optional: [] },
  forward: { required: ["id"], optional: [] },
  file: { required: ["file"], optional: ["name", "url", "file_id", "file_size"] },
  json: { required: ["data"], optional: [] },
  xml: { required: ["data"], optional: [] },
  poke: { required: ["type", "id"], optional: [] },
  mface: { required: [], optional: ["emoji_id", "emoji_package_id", "key", "summary"] },
  markdown: { required: ["content"], optional: [] },
  dice: { required: [], optional: ["result"] },
  rps: { required: [], optional: ["result"] },
};

/** Strings heavy in the characters CQ code escapes, plus unicode. */
export const cqHostileString = fc.oneof(
  fc.string({ unit: "grapheme" }),
  fc
    .array(fc.constantFrom("&", "[", "]", ",", "=", "amp;", "#91;", "&#44;", "[CQ:", "紬", "😀", " ", "a"), {
      maxLength: 12,
    })
    .map((parts) => parts.join("")),
);

const fieldName = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/).filter((name) => name !== "__proto__");

function extraFields(reserved: string[]): fc.Arbitrary<Record<string, string>> {
  return fc
    .dictionary(fieldName, cqHostileString, { maxKeys: 3 })
    .map((extra) => Object.fromEntries(Object.entries(extra).filter(([key]) => !reserved.includes(key))));
}

function optionalFields(names: string[]): fc.Arbitrary<Record<string, string>> {
  return fc
    .tuple(...names.map((name) => fc.option(cqHostileString.map((value) => [name, value] as const))))
    .map((pairs) => Object.fromEntries(pairs.filter((pair) => pair !== null)));
}

function requiredFields(names: string[]): fc.Arbitrary<Record<string, string>> {
  return fc
    .tuple(...names.map((name) => cqHostileString.map((value) => [name, value] as const)))
    .map((pairs) => Object.fromEntries(pairs));
}

const knownLeafSegment: fc.Arbitrary<Segment> = fc.oneof(
  ...Object.entries(FIELDS).map(([type, fields]) =>
    fc
      .tuple(
        requiredFields(fields.required),
        optionalFields(fields.optional),
        extraFields([...fields.required, ...fields.optional]),
      )
      .map(
        ([required, optional, extra]) => ({ type, data: { ...extra, ...required, ...optional } }) as Segment,
      ),
  ),
);

const unknownSegment: fc.Arbitrary<Segment> = fc
  .tuple(
    fc
      .stringMatching(/^[a-z][a-z0-9_]{0,10}$/)
      .filter((type) => !(KNOWN_SEGMENT_TYPES as string[]).includes(type)),
    extraFields([]),
  )
  .map(([type, data]) => ({ type, data, unknown: true }));

const textSegment: fc.Arbitrary<Segment> = cqHostileString.map((text) => ({ type: "text", data: { text } }));

/** Merges adjacent text and drops empty text, as any decoder must. */
export function canonicalSegments(segments: Segment[]): Segment[] {
  const result: Segment[] = [];
  for (const segment of segments) {
    const previous = result[result.length - 1];
    if (segment.type === "text" && !("unknown" in segment)) {
      const text = segment.data.text as string;
      if (text === "") continue;
      if (previous?.type === "text" && !("unknown" in previous)) {
        result[result.length - 1] = { type: "text", data: { text: `${previous.data.text}${text}` } };
        continue;
      }
    }
    result.push(segment);
  }
  return result;
}

const { segments } = fc.letrec<{ segments: Segment[]; segment: Segment }>((tie) => ({
  segment: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    textSegment,
    knownLeafSegment,
    unknownSegment,
    fc
      .tuple(optionalFields(["id", "user_id", "nickname"]), fc.option(tie("segments")))
      .map(
        ([fields, content]) =>
          ({ type: "node", data: content === null ? fields : { ...fields, content } }) as Segment,
      ),
  ),
  segments: fc.array(tie("segment"), { maxLength: 6 }).map(canonicalSegments),
}));

/** Segment lists in canonical form: known types complete, text merged, every value a string. */
export const segmentList: fc.Arbitrary<Segment[]> = segments;
