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
  },
);

/** `stickers` of the config. */
export type StickerSettings = Static<typeof stickersSchema>;
