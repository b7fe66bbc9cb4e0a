/**
 * Messages as plugins see them (SDK types, like ./types.ts): the platform's segments a handler
 * receives, and the reply segments and messages it sends.
 */

/**
 * One segment of an outgoing reply message, in the send protocol's dict form. `data` by type:
 * text → the text; image / emoji → a description ("" allowed); voice → the spoken text;
 * at → a user id; reply → a message id; file → the file name; forward → a forward id;
 * dict → a raw OneBot segment `{ type, data }`. New image, emoji, voice and file segments
 * carry their bytes in `binary_data_base64`; an image or emoji already in the group may be
 * returned with only its `hash`.
 */
export type ReplySegment =
  | { type: "text"; data: string }
  | { type: "image" | "emoji"; data: string; binary_data_base64?: string; hash?: string }
  | { type: "voice"; data: string; binary_data_base64: string; hash?: string }
  | { type: "file"; data: string; binary_data_base64: string; hash?: string }
  | { type: "at" | "reply" | "forward"; data: string }
  | { type: "dict"; data: { type: string; data: Record<string, unknown> } };

export type ReplySegmentType = ReplySegment["type"];

/** One outgoing message. Later messages quote the one before when `quote_previous` is true. */
export interface ReplyMessage {
  segments: ReplySegment[];
  quote_previous: boolean;
}

/**
 * A OneBot v11 message segment, e.g. `{ type: "image", data: { file: "https://…" } }`: what
 * the platform delivered (`event.message`, history).
 */
export interface Segment {
  type: string;
  data: Record<string, unknown>;
}

/**
 * What a plugin sends: plain text, or one segment or a list of segments in the reply dict form
 * (`ReplySegment`, what the SDK's `Text`, `Image`, `Voice`, `At` and `Reply` build). A OneBot
 * segment (`{ type: "image", data: { file } }`) is taken as the `dict` segment carrying it.
 */
export type OutgoingMessage = string | ReplySegment | Segment | (ReplySegment | Segment)[];
