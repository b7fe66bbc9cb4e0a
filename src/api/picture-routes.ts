import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { fetchKeyedPicture, type KeyedPicture, pictureAt } from "../media/picture-refs.ts";
import { voiceSourceOf } from "../media/voice-fetch.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import type { PictureDescriptionAnswer } from "./types.ts";

/** A segment of a stored message: a picture or a voice message the console shows. */
const SegmentQuery = Type.Object({
  sessionId: Type.String({ minLength: 1, maxLength: 300 }),
  messageId: Type.String({ minLength: 1, maxLength: 200 }),
  /** The segment's position in the message. */
  index: Type.Integer({ minimum: 0, maximum: 10_000 }),
});
type SegmentQuery = Static<typeof SegmentQuery>;

/**
 * Media is served from the console's own origin, so it must never be read as anything but what
 * it is: the type was checked by magic bytes (jpeg/png/gif/webp pictures, never SVG; audio
 * types a browser plays), the browser may not sniff another, and a policy that loads and runs
 * nothing covers a direct visit. CORP keeps other sites from embedding it.
 */
const MEDIA_HEADERS = {
  "cache-control": "private, max-age=3600",
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; sandbox",
  "cross-origin-resource-policy": "same-origin",
};

type Found = { ok: true; message: ChatMessage; picture: KeyedPicture } | { ok: false; reason: string };

/**
 * Pictures and voice messages of stored messages for the chat and playground views: fetched by
 * the bot (pictures with the same fetcher and limits as describing, voice with the same limits),
 * so the admin's browser never contacts a host a message names; and the pictures' stored
 * descriptions.
 */
export function registerPictureRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const find = async (query: SegmentQuery): Promise<Found> => {
    const message = await deps.messages.findByMessageId(query.sessionId, query.messageId);
    if (!message) return { ok: false, reason: `no message ${query.messageId} in ${query.sessionId}` };
    const picture = pictureAt(message.segments, query.index);
    if (!picture)
      return { ok: false, reason: `segment ${query.index} of message ${query.messageId} is not a picture` };
    return { ok: true, message, picture };
  };

  app.get("/api/pictures", { schema: { querystring: SegmentQuery } }, async (request, reply) => {
    const found = await find(request.query as SegmentQuery);
    if (!found.ok) return reply.code(404).send({ error: "not_found", message: found.reason });
    const fetched = await fetchKeyedPicture(found.picture, deps.pictures.fetcherFor(found.message));
    if (!fetched.ok) return reply.code(502).send({ error: "picture_unavailable", message: fetched.reason });
    const { bytes, mime } = fetched.picture;
    return reply.headers({ ...MEDIA_HEADERS, "content-type": mime }).send(bytes);
  });

  app.get("/api/records", { schema: { querystring: SegmentQuery } }, async (request, reply) => {
    const query = request.query as SegmentQuery;
    const message = await deps.messages.findByMessageId(query.sessionId, query.messageId);
    if (!message) {
      return reply
        .code(404)
        .send({ error: "not_found", message: `no message ${query.messageId} in ${query.sessionId}` });
    }
    const source = voiceSourceOf(message.segments[query.index]);
    if (!source) {
      const reason = `segment ${query.index} of message ${query.messageId} is not a voice message with audio`;
      return reply.code(404).send({ error: "not_found", message: reason });
    }
    const fetched = await deps.pictures.voiceFetcherFor(message)(source);
    if (!fetched.ok) return reply.code(502).send({ error: "voice_unavailable", message: fetched.reason });
    const { audio } = fetched;
    return reply.headers({ ...MEDIA_HEADERS, "content-type": audio.mime }).send(audio.bytes);
  });

  app.get("/api/pictures/description", { schema: { querystring: SegmentQuery } }, async (request, reply) => {
    const found = await find(request.query as SegmentQuery);
    if (!found.ok) return reply.code(404).send({ error: "not_found", message: found.reason });
    const { ref } = found.picture;
    const stored =
      ref.fileId === undefined ? undefined : await deps.pictures.descriptions.findByFileId(ref.fileId);
    const answer: PictureDescriptionAnswer = {
      description: stored ? { kind: ref.kind, text: stored.description, model: stored.model } : null,
    };
    return answer;
  });
}
