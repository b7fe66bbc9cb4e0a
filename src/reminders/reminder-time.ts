/**
 * The times people give reminders in, read in a time zone: `20:00` (today, or tomorrow once
 * past), `12-24 09:00`, `2026-12-24 09:00`, and relative `30s`, `10m`, `2h`, `1d` (also 秒, 分钟, 小时, 天).
 */

const RELATIVE = /^(\d{1,5})\s*(s|秒|m|min|分钟|分|h|小时|d|天)$/i;
const CLOCK = /^(\d{1,2})[:：](\d{2})$/;
const DATE_CLOCK = /^(?:(\d{4})[-/])?(\d{1,2})[-/](\d{1,2})[ T](\d{1,2})[:：](\d{2})$/;

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  秒: 1_000,
  m: 60_000,
  min: 60_000,
  分钟: 60_000,
  分: 60_000,
  h: 3_600_000,
  小时: 3_600_000,
  d: 86_400_000,
  天: 86_400_000,
};

/** How a time was read: the Unix milliseconds, and how many leading words of the text it took. */
export interface ReadTime {
  at: number;
  words: number;
}

/** Reads a time from the start of `words`; undefined when they start with none. */
export function readTime(words: string[], now: number, timeZone: string): ReadTime | undefined {
  const [first = "", second = ""] = words;
  const relative = RELATIVE.exec(first);
  if (relative) {
    return { at: now + Number(relative[1]) * UNIT_MS[relative[2]!.toLowerCase()]!, words: 1 };
  }
  const clock = CLOCK.exec(first);
  if (clock) {
    const today = { ...wallClockParts(now, timeZone), hour: Number(clock[1]), minute: Number(clock[2]) };
    if (!exists(today)) return undefined;
    const at = wallClockToUtc(today, timeZone);
    // A time already past today means tomorrow's (Date.UTC rolls the day over a month's end).
    return { at: at > now ? at : wallClockToUtc({ ...today, day: today.day + 1 }, timeZone), words: 1 };
  }
  const dated = DATE_CLOCK.exec(`${first} ${second}`);
  if (dated) {
    const wall = {
      year: dated[1] === undefined ? wallClockParts(now, timeZone).year : Number(dated[1]),
      month: Number(dated[2]),
      day: Number(dated[3]),
      hour: Number(dated[4]),
      minute: Number(dated[5]),
    };
    return exists(wall) ? { at: wallClockToUtc(wall, timeZone), words: 2 } : undefined;
  }
  return undefined;
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

/** Whether a wall-clock time names a real minute (no 25:00, no February 30). */
function exists(wall: WallClock): boolean {
  const probe = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute));
  return (
    probe.getUTCMonth() === wall.month - 1 &&
    probe.getUTCDate() === wall.day &&
    probe.getUTCHours() === wall.hour &&
    probe.getUTCMinutes() === wall.minute
  );
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
