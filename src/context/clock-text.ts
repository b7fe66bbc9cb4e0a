/** `HH:mm:ss` of a Unix time in milliseconds. */
export type ClockText = (timeMs: number) => string;

/** Local wall-clock text in one time zone. */
export interface ZonedClock {
  /** `HH:mm:ss` */
  time: ClockText;
  /** `YYYY-MM-DD` */
  date: ClockText;
}

/** Zone offsets change only on the quarter hour, so one lookup serves a 15-minute bucket. */
const BUCKET_MS = 15 * 60_000;
const MAX_CACHED_BUCKETS = 512;

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Formats times in an IANA time zone (`Asia/Shanghai`), or in the process's local zone when
 * none is given. Intl is asked once per quarter hour for the zone's offset; every line of a
 * prompt is then plain arithmetic. Throws a RangeError for an unknown zone.
 */
export function zonedClock(timeZone: string | undefined): ZonedClock {
  if (!timeZone) {
    return {
      time: (ms) => {
        const d = new Date(ms);
        return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
      },
      date: (ms) => {
        const d = new Date(ms);
        return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
      },
    };
  }
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  const offsets = new Map<number, number>();
  const offsetAt = (ms: number): number => {
    const bucket = Math.floor(ms / BUCKET_MS);
    let offset = offsets.get(bucket);
    if (offset === undefined) {
      const at = bucket * BUCKET_MS;
      const parts = format.formatToParts(at);
      const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
      offset =
        Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second")) - at;
      if (offsets.size >= MAX_CACHED_BUCKETS) offsets.clear();
      offsets.set(bucket, offset);
    }
    return offset;
  };
  const wall = (ms: number) => new Date(ms + offsetAt(ms));
  return {
    time: (ms) => {
      const d = wall(ms);
      return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    },
    date: (ms) => {
      const d = wall(ms);
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    },
  };
}

/** `HH:mm:ss` in a time zone (or the local one); see `zonedClock`. */
export function clockText(timeZone: string | undefined): ClockText {
  return zonedClock(timeZone).time;
}
