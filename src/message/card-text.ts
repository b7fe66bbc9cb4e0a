/**
 * What a member sees of a QQ card: the title, description and link of a mini-app or link
 * share (`json` segments: an ark card's `prompt` and `meta.*`; `xml` segments: a struct
 * message's `brief`, `<title>`, `<summary>` and `url`). Card text comes from other people, so
 * it is parsed only up to a size cap and every field shown is cut short.
 */

import { type Static, Type } from "@sinclair/typebox";
import { ajvOnFirstUse, checkOnFirstUse } from "../schema/compile-on-first-use.ts";
import { parseJsonLossless } from "../util/json.ts";
import { clip } from "../util/values.ts";

/** A real share card is a few kilobytes; anything far larger is not parsed at all. */
export const MAX_CARD_CHARS = 64 * 1024;

/** The longest title, description or link shown of a card. */
export const MAX_CARD_FIELD_CHARS = 200;

/** The app id QQ gives a merged forward shared as a json card. */
const MULTIMSG_APP = "com.tencent.multimsg";

const text = Type.Optional(Type.String());

/** One entry of an ark card's `meta` (`detail_1` of a mini-app, `news`, `music`, …). */
const metaEntrySchema = Type.Object({ title: text, desc: text, qqdocurl: text, jumpUrl: text });

const arkCardSchema = Type.Object({
  app: text,
  prompt: text,
  desc: text,
  meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

type ArkCard = Static<typeof arkCardSchema>;
type MetaEntry = Static<typeof metaEntrySchema>;

const ajv = ajvOnFirstUse({ strict: false });
const isArkCard = checkOnFirstUse<ArkCard>(ajv, arkCardSchema);
const isMetaEntry = checkOnFirstUse<MetaEntry>(ajv, metaEntrySchema);

/** A card's visible parts; every field already flattened to one line and cut short. */
export interface CardParts {
  title?: string;
  description?: string;
  link?: string;
}

/** A json segment's card, parsed and checked once; undefined when it is not a card we can read. */
export function parseArkCard(cardText: string): ArkCard | undefined {
  if (cardText.length > MAX_CARD_CHARS) return undefined;
  try {
    const card: unknown = parseJsonLossless(cardText);
    return isArkCard(card) ? card : undefined;
  } catch {
    return undefined;
  }
}

/** True when the card is a merged forward shared as a card (its content comes from get_forward_msg). */
export function isMultimsgCard(card: ArkCard | undefined): boolean {
  return card?.app === MULTIMSG_APP;
}

/** The forward id a merged-forward card carries in `meta.detail.resid`. */
export function residOf(card: ArkCard): string | undefined {
  const detail = card.meta?.detail;
  const resid =
    typeof detail === "object" && detail !== null ? (detail as { resid?: unknown }).resid : undefined;
  return typeof resid === "string" && resid !== "" ? resid : undefined;
}

/** Title, description and link of an ark card: the first `meta` entry that has a title, else the prompt. */
export function arkCardParts(card: ArkCard): CardParts {
  const entry = Object.values(card.meta ?? {}).find(
    (value): value is MetaEntry => isMetaEntry(value) && shown(value.title) !== undefined,
  );
  return {
    title: shown(entry?.title) ?? shown(card.prompt),
    description: shown(entry?.desc),
    link: shown(entry?.qqdocurl) ?? shown(entry?.jumpUrl),
  };
}

/** Title, summary and link of an xml struct message; the `brief` stands in for a missing title. */
export function xmlCardParts(xml: string): CardParts {
  const head = xml.slice(0, MAX_CARD_CHARS);
  return {
    title: shown(elementText(head, "title")) ?? shown(attribute(head, "brief")),
    description: shown(elementText(head, "summary")),
    link: shown(attribute(head, "url")),
  };
}

/** What a json segment's card reads as: `[合并转发]` for a merged-forward card, else its parts. */
export function jsonCardText(json: string): string {
  const card = parseArkCard(json);
  if (isMultimsgCard(card)) return "[合并转发]";
  return card === undefined ? "[卡片]" : cardText(arkCardParts(card));
}

/** `[卡片：title - description link]`, leaving out what the card does not have. */
export function cardText(parts: CardParts): string {
  const { title, description, link } = parts;
  const words = [title, description !== title ? description : undefined].filter((part) => part !== undefined);
  const body = [words.join(" - "), link].filter((part) => part !== undefined && part !== "").join(" ");
  return body === "" ? "[卡片]" : `[卡片：${body}]`;
}

/** An outside text field as shown: on one line, cut to MAX_CARD_FIELD_CHARS; undefined when empty. */
export function shown(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const flat = value.replace(/\s+/g, " ").trim();
  return flat ? clip(flat, MAX_CARD_FIELD_CHARS) : undefined;
}

function attribute(xml: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(xml);
  return match ? decodeXmlEntities(match[1] ?? match[2] ?? "") : undefined;
}

function elementText(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml);
  return match ? decodeXmlEntities(match[1] ?? "") : undefined;
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeXmlEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith("#")) {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}
