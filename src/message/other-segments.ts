/**
 * Segment types outside the model (location, music, share, contact, online files, QQ flash
 * transfer, red packets, whatever an implementation adds later) as a member would read them:
 * a bracketed label plus the one or two fields that say what the thing is.
 */

import { jsonCardText, shown } from "./card-text.ts";

type SegmentData = Record<string, unknown>;

/** How each known-by-name type reads: its label and the fields that describe it. */
const OTHER_SEGMENTS: Record<string, (data: SegmentData) => string> = {
  location: (data) => withDetails("位置", [shown(data.title), shown(data.address ?? data.content)]),
  music: (data) => withDetails("音乐", [shown(data.title)]),
  share: (data) => withDetails("分享", [shown(data.title), shown(data.url)]),
  contact: (data) =>
    withDetails(data.type === "group" ? "推荐群" : "推荐好友", [shown(String(data.id ?? ""))]),
  onlinefile: (data) =>
    withDetails(
      data.isDir === true ? "在线文件夹" : "在线文件",
      [shown(data.fileName)],
      byteSize(text(data.fileSize)),
    ),
  flashtransfer: (data) => withDetails("QQ闪传", [shown(data.title ?? data.fileName)]),
  flash_file: (data) => withDetails("QQ闪传", [shown(data.title)]),
  redbag: (data) => withDetails("红包", [shown(data.title)]),
  shake: () => "[窗口抖动]",
  poke: () => "[戳一戳]",
  // NapCat's name for a mini-app card it sends; the data is an ark card like a json segment's.
  miniapp: (data) => (typeof data.data === "string" ? jsonCardText(data.data) : "[卡片]"),
};

/** Fields that say what an unfamiliar segment is, in the order they are tried. */
const TELLING_FIELDS = ["text", "title", "name", "summary"] as const;

/** `[label]`, or `[label：details (size)]` with the details that are present. */
export function withDetails(label: string, details: Array<string | undefined>, size?: string): string {
  const named = details.filter((detail) => detail !== undefined).join(" ");
  const body = size === undefined ? named : named === "" ? size : `${named} (${size})`;
  return body === "" ? `[${label}]` : `[${label}：${body}]`;
}

/** A segment the model does not describe (or one whose data did not fit the model). */
export function otherSegmentText(type: string, data: SegmentData): string {
  const known = Object.hasOwn(OTHER_SEGMENTS, type) ? OTHER_SEGMENTS[type] : undefined;
  if (known) return known(data);
  const telling = TELLING_FIELDS.map((field) => shown(data[field])).find((value) => value !== undefined);
  return withDetails(shown(type) ?? "?", [telling]);
}

/** A byte count as people write it (`930 B`, `1.2 MB`); undefined when it is not a count. */
export function byteSize(value: string | undefined): string | undefined {
  const bytes = Number(value);
  if (value === undefined || value === "" || !Number.isFinite(bytes) || bytes < 0) return undefined;
  const units = ["B", "KB", "MB", "GB", "TB"];
  let amount = bytes;
  let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) {
    amount /= 1024;
    unit++;
  }
  return unit === 0 ? `${amount} B` : `${amount.toFixed(1)} ${units[unit]}`;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}
