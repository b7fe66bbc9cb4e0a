import type { ReplySegment, Segment } from "./types.ts";

/*
 * Segment builders, named like the message components of function-declaration plugins
 * (`[Text("hi"), Image(url)]`). They build the reply segments' dict form, the one vocabulary of what a
 * plugin sends: the same segments go to `bot.send`, a command's answer and a reply
 * extension's `messages`.
 */

export function Text(text: string): ReplySegment {
  return { type: "text", data: text };
}

/**
 * A picture: its bytes, or a file the OneBot implementation fetches itself (`https://…`,
 * `file:///…`, `base64://…`, sent as a raw OneBot `image` in a `dict` segment).
 * `description` is what the picture shows ("" allowed).
 */
export function Image(file: Uint8Array | string, description = ""): ReplySegment {
  if (typeof file === "string") return oneBot("image", { file });
  return { type: "image", data: description, binary_data_base64: base64(file) };
}

/**
 * A voice message: audio bytes (WAV, MP3, OGG, AMR, SILK, FLAC or M4A), or a file as for
 * `Image`. `text` is what it says.
 */
export function Voice(audio: Uint8Array | string, text = ""): ReplySegment {
  if (typeof audio === "string") return oneBot("record", { file: audio });
  return { type: "voice", data: text, binary_data_base64: base64(audio) };
}

/** Mentions a user ("all" mentions everyone). */
export function At(userId: string): ReplySegment {
  return { type: "at", data: userId };
}

/** Quotes a message; put it first. */
export function Reply(messageId: string): ReplySegment {
  return { type: "reply", data: messageId };
}

/** A raw OneBot segment, sent as it is. */
function oneBot(type: string, data: Segment["data"]): ReplySegment {
  return { type: "dict", data: { type, data } };
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}
