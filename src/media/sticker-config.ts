import { type Static, Type } from "@sinclair/typebox";
import { count, group } from "../schema/fields.ts";

export const stickersSchema = group(
  "Stickers back: stickers the bot has seen and described are kept, and the planner may send one (tool send_sticker).",
  {
    enabled: Type.Boolean({
      default: false,
      description:
        "Keep the stickers described in chats and offer the planner send_sticker; off, nothing is kept or offered.",
    }),
    groups: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        "Group ids where stickers are kept and sent; empty means every group and private chat, listed means only those groups.",
    }),
    capacity: count(
      "Most stickers kept; beyond it the least used (then least recently used, then oldest) are dropped",
      200,
    ),
    maxTotalBytes: count(
      "Most bytes all kept stickers take together (they live in the database); beyond it the least used (then least recently used, then oldest) are dropped",
      32 * 1024 * 1024,
    ),
    shareAcrossChats: Type.Boolean({
      default: false,
      description:
        "Send a sticker collected in one chat in other chats too; off, a sticker is sent only in the chat it was collected in.",
    }),
  },
);

/** `stickers` of the config. */
export type StickerSettings = Static<typeof stickersSchema>;
