import { type Static, Type } from "@sinclair/typebox";
import { count, group, milliseconds } from "../schema/fields.ts";

export const imagesSchema = group(
  "Drawing with the image models (llm.models.image): the planner's generate_image, and its caps.",
  {
    size: Type.String({
      pattern: "^[0-9]{2,5}x[0-9]{2,5}$",
      default: "1024x1024",
      description: 'The size asked for, "WIDTHxHEIGHT" (sent as `size`; the model must support it).',
    }),
    maxPromptChars: count(
      "Longest prompt sent to the image model, in characters; a longer one is refused",
      1000,
    ),
    maxBytes: count(
      "Largest picture accepted from the model (Base64 or fetched), in bytes",
      10 * 1024 * 1024,
    ),
    maxPerTurn: count("Pictures one turn may make; the next generate_image is refused", 1, 0),
    maxPerDay: count(
      "Pictures this bot process may make per day in all chats (in memory, per local calendar day); the next generate_image is refused",
      50,
      0,
    ),
    userMaxPerDay: count(
      "Pictures the turns of one member may make per day (in memory, per local calendar day); 0 means no per-member cap",
      5,
      0,
    ),
    tokensPerPicture: count(
      "Tokens a picture counts for in the daily token budgets (limits.*) when the provider reports no usage",
      1000,
      0,
    ),
    timeoutMs: milliseconds(
      "Limit for making one picture, every model of the list and the fetch together",
      120_000,
    ),
  },
);

/** `media.images` of the config. */
export type ImageSettings = Static<typeof imagesSchema>;
