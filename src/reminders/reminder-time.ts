/**
 * The times people and models give reminders in, read in a time zone by chrono-node's Chinese
 * (zh.hans) and English parsers: relative (30分钟后, 两小时后, in 2 hours, 10m), day words
 * (今晚八点, 明天早上9点, 后天下午三点, 下周一 10:00, tomorrow 9am), dates (12-24 09:00,
 * 12月24日 9点, 2026-12-24 09:00), ISO 8601 with or without an offset, and today's `20:00`
 * (tomorrow's once past). A few forms chrono misses or misreads are rewritten first (normalise).
 */
import { en } from "chrono-node";
import { hans } from "chrono-node/zh";

/** Longest text read for a time: a reminder command or a tool argument, never a document. */
const MAX_INPUT_CHARS = 200;

/** How a time was read: the Unix milliseconds, and the text after it (what to remind of). */
export interface ReadTime {
  at: number;
  rest: string;
}

/** Reads a time at the start of `text`; undefined when it starts with none. */
export function readTime(text: string, now: number, timeZone: string): ReadTime | undefined {
  const input = text.trimStart().slice(0, MAX_INPUT_CHARS);
  const rewritten = normalise(input, wallClockParts(now, timeZone));
  // chrono's zh parsers read the day from the process's own clock, whatever zone they are
  // given: both parsers get the chat zone's wall clock as a local time and no zone, and what
  // they read is placed back in the chat zone below.
  const reference = { instant: localWallClock(now, timeZone) };
  const options = { forwardDate: true };
  const results = [
    ...hans.parse(rewritten.text, reference, options),
    ...en.parse(rewritten.text, reference, options),
  ];
  const best = results
    .filter((result) => result.index === 0)
    .sort((a, b) => b.text.length - a.text.length)[0];
  if (!best) return undefined;
  const start = best.start;
  const wall = {
    year: start.get("year")!,
    month: start.get("month")!,
    day: start.get("day")!,
    hour: start.get("hour")!,
    minute: start.get("minute")!,
  };
  const seconds = (start.get("second") ?? 0) * 1_000;
  const written = start.isCertain("timezoneOffset") && !start.tags().has("result/relativeDate");
  const at = written
    ? // An offset written in the text (ISO 8601 `Z`, `+08:00`) says where the wall clock is.
      Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute) +
      seconds -
      start.get("timezoneOffset")! * 60_000
    : wallClockToUtc(wall, timeZone) + seconds;
  const end = rewritten.toOriginal(best.text.trimEnd().length);
  return { at, rest: input.slice(end).trim() };
}

/** A Date whose local (process) wall clock shows `timeZone`'s wall clock at `ms`. */
function localWallClock(ms: number, timeZone: string): Date {
  if (timeZone === "") return new Date(ms);
  const { year, month, day, hour, minute } = wallClockParts(ms, timeZone);
  return new Date(year, month - 1, day, hour, minute, new Date(ms).getUTCSeconds(), ms % 1_000);
}

/** `text` with the forms chrono misses rewritten, and a map from its indexes back to `text`'s. */
interface Rewritten {
  text: string;
  toOriginal(index: number): number;
}

/**
 * Rewrites what chrono 2.10 misses or misreads: Chinese relative times (`30分钟后`, `两小时后`,
 * `一个半小时后`: its zh reader places them off by the zone's offset) as English ones (`in 30
 * minutes`); `明早` / `明晚` (read as today) as `明天早上` / `明天晚上`; `12-24 09:00` as `12/24 09:00`;
 * `下周一` / `这周五` as the date, in weeks from Monday to Sunday as in China (chrono's start on
 * Sunday: on a Sunday it reads 下周一 as the day after tomorrow's week).
 */
export function normalise(text: string, today: WallClock): Rewritten {
  const pieces: { from: number; to: number; replacement: string }[] = [];
  for (const match of text.matchAll(REWRITES)) {
    const replacement = rewrite(match, today);
    if (replacement !== undefined) {
      pieces.push({ from: match.index, to: match.index + match[0].length, replacement });
    }
  }
  let out = "";
  let last = 0;
  const spans: { originalEnd: number; end: number; start: number }[] = [];
  for (const piece of pieces) {
    out += text.slice(last, piece.from);
    const start = out.length;
    out += piece.replacement;
    spans.push({ start, end: out.length, originalEnd: piece.to });
    last = piece.to;
  }
  out += text.slice(last);
  return {
    text: out,
    toOriginal(index) {
      let shift = 0;
      for (const span of spans) {
        if (index <= span.start) break;
        // An index inside a rewritten piece stands for the end of what it replaced.
        if (index <= span.end) return span.originalEnd;
        shift = span.originalEnd - span.end;
      }
      return index + shift;
    },
  };
}

const ZH_DIGITS = "零一二两三四五六七八九十";
const REWRITES = new RegExp(
  [
    // 30分钟后, 两小时后, 一个半小时后, 3天以后, 两周后
    `(?<amount>\\d{1,4}|[${ZH_DIGITS}]{1,3})?(?<half>个?半)?\\s*个?\\s*(?<unit>秒钟?|分钟|分|小时|钟头|天|日|周|星期|礼拜|个?月)(?<half2>半)?\\s*(?:之|以)?后`,
    "(?<tomorrow>明早|明晚)",
    "(?<week>下|这|本)个?(?:周|星期|礼拜)(?<weekday>[一二三四五六日天])",
    "^(?<monthDay>\\d{1,2})-(?<day>\\d{1,2})(?=[\\sT])",
  ].join("|"),
  "g",
);

const UNIT_WORDS: Record<string, string> = {
  秒: "second",
  秒钟: "second",
  分: "minute",
  分钟: "minute",
  小时: "hour",
  钟头: "hour",
  天: "day",
  日: "day",
  周: "week",
  星期: "week",
  礼拜: "week",
  月: "month",
  个月: "month",
};

function rewrite(match: RegExpMatchArray, today: WallClock): string | undefined {
  const groups = match.groups!;
  if (groups.week !== undefined) {
    const fromMonday = (weekdayOf(today) + 6) % 7;
    const target = "一二三四五六日".indexOf(groups.weekday!.replace("天", "日"));
    const day = today.day - fromMonday + target + (groups.week === "下" ? 7 : 0);
    const date = new Date(Date.UTC(today.year, today.month - 1, day));
    return `${date.getUTCFullYear()}年${date.getUTCMonth() + 1}月${date.getUTCDate()}日`;
  }
  if (groups.tomorrow !== undefined) return groups.tomorrow === "明早" ? "明天早上" : "明天晚上";
  if (groups.monthDay !== undefined) return `${groups.monthDay}/${groups.day}`;
  const unit = UNIT_WORDS[groups.unit!]!;
  const whole = groups.amount === undefined ? 0 : numberOf(groups.amount);
  const half = groups.half !== undefined || groups.half2 !== undefined;
  if (whole === undefined || (whole === 0 && !half)) return undefined;
  // Halves in smaller units chrono reads exactly: 一个半小时 is 90 minutes.
  const smaller: Record<string, [string, number]> = {
    hour: ["minute", 60],
    minute: ["second", 60],
    day: ["hour", 24],
  };
  if (half && smaller[unit]) {
    const [small, per] = smaller[unit];
    return `in ${whole * per + per / 2} ${small}s`;
  }
  if (half) return undefined;
  return `in ${whole} ${unit}s`;
}

/** 0 for Sunday to 6 for Saturday. */
function weekdayOf(wall: WallClock): number {
  return new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay();
}

/** 3, 三, 两, 十, 十二, 二十, 二十三 (up to 99); undefined for what is not such a number. */
function numberOf(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const digit = (char: string | undefined) =>
    char === undefined ? undefined : "零一二三四五六七八九".indexOf(char.replace("两", "二"));
  const [first, second, third] = [...text];
  if (text.length === 1) return first === "十" ? 10 : positive(digit(first));
  if (first === "十" && text.length === 2) {
    const ones = positive(digit(second));
    return ones === undefined ? undefined : 10 + ones;
  }
  if (second === "十") {
    const tens = positive(digit(first));
    const ones = third === undefined ? 0 : positive(digit(third));
    if (tens === undefined || ones === undefined) return undefined;
    return tens * 10 + ones;
  }
  return undefined;
}

function positive(value: number | undefined): number | undefined {
  return value === undefined || value < 0 || Number.isNaN(value) ? undefined : value;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** The wall clock of `ms` in `timeZone` (the process's own zone when empty). */
export function wallClockParts(ms: number, timeZone: string): WallClock {
  const parts = formatter(timeZone).formatToParts(ms);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return {
    year: get("year"),
    month: get("month"),
    day: get("day"),
    hour: get("hour"),
    minute: get("minute"),
  };
}

/** `YYYY-MM-DD HH:mm` of `ms` in `timeZone`: how reminders are shown. */
export function wallClockText(ms: number, timeZone: string): string {
  const { year, month, day, hour, minute } = wallClockParts(ms, timeZone);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${year}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}`;
}

/** The Unix milliseconds of a wall-clock time in `timeZone` (a day past a month's end rolls over). */
export function wallClockToUtc(wall: WallClock, timeZone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  // The zone's offset at the guess, then at the corrected time (right across a DST change).
  return asUtc - offsetAt(asUtc - offsetAt(asUtc, timeZone), timeZone);
}

/** How far `timeZone`'s wall clock is ahead of UTC at `ms` (whole minutes). */
function offsetAt(ms: number, timeZone: string): number {
  const { year, month, day, hour, minute } = wallClockParts(ms, timeZone);
  return Date.UTC(year, month - 1, day, hour, minute) - (ms - (ms % 60_000));
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      ...(timeZone === "" ? {} : { timeZone }),
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    });
    formatters.set(timeZone, format);
  }
  return format;
}
