/**
 * CQ code, the string message format of OneBot v11: plain text with `[CQ:type,key=value,...]`
 * codes. Text escapes `&`, `[` and `]`; parameter values additionally escape `,`.
 */

import { isKnownSegment, makeSegment, type Segment, textSegment } from "./segment.ts";

const CQ_OPENING = "[CQ:";
const ESCAPED_ENTITY = /&(amp|#91|#93|#44);/g;
const UNESCAPED: Record<string, string> = { amp: "&", "#91": "[", "#93": "]", "#44": "," };

export function encodeCq(segments: Segment[]): string {
  return segments.map(encodeSegment).join("");
}

/**
 * Node content nested deeper than this stays CQ text (an unknown node segment). Real forwards
 * nest a few levels; each level re-reads the text inside it, so unbounded nesting would cost
 * time quadratic in the text's length (a 6 MB string nested 1,000 deep took 19 s).
 */
export const MAX_NODE_DEPTH = 32;

/**
 * Decodes a CQ string; adjacent text is merged and a code without a type is kept as text.
 * `depth`: how many node levels already enclose this text.
 */
export function decodeCq(text: string, depth = 0): Segment[] {
  const segments: Segment[] = [];
  let pendingText = "";
  let index = 0;
  while (index < text.length) {
    const codeStart = text.indexOf(CQ_OPENING, index);
    const codeEnd = codeStart === -1 ? -1 : text.indexOf("]", codeStart);
    if (codeEnd === -1) {
      pendingText += unescapeCq(text.slice(index));
      break;
    }
    pendingText += unescapeCq(text.slice(index, codeStart));
    const segment = decodeCode(text.slice(codeStart + CQ_OPENING.length, codeEnd), depth);
    if (segment === undefined) {
      pendingText += unescapeCq(text.slice(codeStart, codeEnd + 1));
    } else if (segment.type === "text" && isKnownSegment(segment)) {
      pendingText += segment.data.text;
    } else {
      if (pendingText !== "") segments.push(textSegment(pendingText));
      pendingText = "";
      segments.push(segment);
    }
    index = codeEnd + 1;
  }
  if (pendingText !== "") segments.push(textSegment(pendingText));
  return segments;
}

function encodeSegment(segment: Segment): string {
  if (segment.type === "text" && isKnownSegment(segment)) return escapeText(segment.data.text);
  let code = `${CQ_OPENING}${segment.type}`;
  for (const [key, value] of Object.entries(segment.data)) {
    if (value === undefined || value === null) continue;
    code += `,${key}=${escapeParam(paramText(segment.type, key, value))}`;
  }
  return `${code}]`;
}

/** CQ parameters are strings: node content nests as CQ text, other structures as JSON. */
function paramText(type: string, key: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (type === "node" && key === "content" && Array.isArray(value)) return encodeCq(value as Segment[]);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Decodes the inside of `[CQ:...]`; undefined when it has no type. */
function decodeCode(inner: string, depth: number): Segment | undefined {
  const [type = "", ...params] = inner.split(",");
  if (type === "") return undefined;
  // fromEntries defines own properties, so a key like `__proto__` stays plain data.
  const data: Record<string, unknown> = Object.fromEntries(params.map(decodeParam));
  if (type === "node" && typeof data.content === "string" && depth < MAX_NODE_DEPTH) {
    data.content = decodeCq(data.content, depth + 1);
  }
  return makeSegment(type, data);
}

function decodeParam(param: string): [string, string] {
  const equals = param.indexOf("=");
  if (equals === -1) return [param, ""];
  return [param.slice(0, equals), unescapeCq(param.slice(equals + 1))];
}

function escapeText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("[", "&#91;").replaceAll("]", "&#93;");
}

function escapeParam(value: string): string {
  return escapeText(value).replaceAll(",", "&#44;");
}

function unescapeCq(text: string): string {
  return text.replace(ESCAPED_ENTITY, (_, entity: string) => UNESCAPED[entity]!);
}
