import { describe, expect, it } from "vitest";
import { zonedClock } from "../../src/context/clock-text.ts";

describe("zonedClock", () => {
  it("writes times and dates in the configured zone", () => {
    const shanghai = zonedClock("Asia/Shanghai");
    const t = Date.UTC(2025, 10, 29, 17, 6, 40); // 2025-11-29 17:06:40 UTC
    expect(shanghai.time(t)).toBe("01:06:40");
    expect(shanghai.date(t)).toBe("2025-11-30");
  });

  it("follows daylight saving changes", () => {
    const newYork = zonedClock("America/New_York");
    // 2026-03-08: clocks jump from 02:00 EST to 03:00 EDT (07:00 UTC).
    expect(newYork.time(Date.UTC(2026, 2, 8, 6, 59, 59))).toBe("01:59:59");
    expect(newYork.time(Date.UTC(2026, 2, 8, 7, 0, 0))).toBe("03:00:00");
    expect(newYork.time(Date.UTC(2026, 6, 1, 12, 0, 0))).toBe("08:00:00");
  });

  it("agrees with Intl for random instants", () => {
    const zone = "Asia/Kolkata";
    const clock = zonedClock(zone);
    const reference = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      hourCycle: "h23",
      timeStyle: "medium",
    });
    for (let i = 0; i < 200; i++) {
      const t = Date.UTC(2020, 0, 1) + Math.floor(Math.random() * 10 * 365 * 86_400_000);
      expect(clock.time(t)).toBe(reference.format(t));
    }
  });
});
