import type { Segment } from "./types.ts";

/* Segment builders, named like seed 004's message components: `[Text("hi"), Image(url)]`. */

export function Text(text: string): Segment {
  return { type: "text", data: { text } };
}

/** `file`: an http(s) URL, `file:///path` or `base64://…`. */
export function Image(file: string): Segment {
  return { type: "image", data: { file } };
}

/** A voice message; `file` as for Image. */
export function Voice(file: string): Segment {
  return { type: "record", data: { file } };
}

/** Mentions a user ("all" mentions everyone). */
export function At(userId: string): Segment {
  return { type: "at", data: { qq: userId } };
}

/** Quotes a message; put it first. */
export function Reply(messageId: string): Segment {
  return { type: "reply", data: { id: messageId } };
}
