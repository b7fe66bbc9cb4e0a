/** `HH:mm:ss` of a Unix time in milliseconds. */
export type ClockText = (timeMs: number) => string;

/**
 * Formats times as `HH:mm:ss` in an IANA time zone (`Asia/Shanghai`), or in the process's
 * local zone when none is given. Throws a RangeError for an unknown zone.
 */
export function clockText(timeZone: string | undefined): ClockText {
  const format = new Intl.DateTimeFormat("en-GB", {
    timeZone: timeZone || undefined,
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  return (timeMs) => {
    let hour = "00";
    let minute = "00";
    let second = "00";
    for (const part of format.formatToParts(timeMs)) {
      if (part.type === "hour") hour = part.value;
      else if (part.type === "minute") minute = part.value;
      else if (part.type === "second") second = part.value;
    }
    return `${hour}:${minute}:${second}`;
  };
}
