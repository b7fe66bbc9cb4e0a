/**
 * The reader of reminder times (chrono-node's zh.hans and en parsers behind one function), at
 * fixed moments in Asia/Shanghai, including ones where the UTC day is another (chrono's zh
 * parsers read the process's own day) and a Sunday (weeks run Monday to Sunday in China).
 */
import { describe, expect, it } from "vitest";
import { readTime, wallClockText } from "../../src/reminders/reminder-time.ts";

const ZONE = "Asia/Shanghai";

function read(text: string, now: string): string | undefined {
  const time = readTime(text, Date.parse(now), ZONE);
  return time && `${wallClockText(time.at, ZONE)} | ${time.rest}`;
}

describe("readTime", () => {
  const tuesdayMorning = "2026-12-08T08:05:00+08:00";
  const cases: [string, string][] = [
    ["30分钟后 喝水", "2026-12-08 08:35 | 喝水"],
    ["两小时后喝水", "2026-12-08 10:05 | 喝水"],
    ["一个半小时后 出门", "2026-12-08 09:35 | 出门"],
    ["in 2 hours stretch", "2026-12-08 10:05 | stretch"],
    ["今晚八点 看剧", "2026-12-08 20:00 | 看剧"],
    ["明天早上9点 开会", "2026-12-09 09:00 | 开会"],
    ["明晚8点 打球", "2026-12-09 20:00 | 打球"],
    ["后天下午三点 交报告", "2026-12-10 15:00 | 交报告"],
    ["下周一 10:00 周会", "2026-12-14 10:00 | 周会"],
    ["tomorrow 9am standup", "2026-12-09 09:00 | standup"],
    ["12-24 09:00 平安夜", "2026-12-24 09:00 | 平安夜"],
    ["12月24日 9点 平安夜", "2026-12-24 09:00 | 平安夜"],
    ["2026-12-24 09:00 平安夜", "2026-12-24 09:00 | 平安夜"],
    ["2026-12-24T09:00:00Z", "2026-12-24 17:00 | "],
    ["2026-12-24T09:00:00+08:00", "2026-12-24 09:00 | "],
    ["2026-12-24T09:00:00", "2026-12-24 09:00 | "],
    ["30m 喝水", "2026-12-08 08:35 | 喝水"],
    ["20:00 交作业", "2026-12-08 20:00 | 交作业"],
    ["07:00 跑步", "2026-12-09 07:00 | 跑步"],
    ["20:00 提醒我明晚的会", "2026-12-08 20:00 | 提醒我明晚的会"],
  ];
  for (const [text, expected] of cases) {
    it(`reads "${text}"`, () => expect(read(text, tuesdayMorning)).toBe(expected));
  }

  it("reads day words on the chat's day when the UTC day is the one before", () => {
    const early = "2026-12-08T06:00:00+08:00"; // 2026-12-07 22:00 UTC
    expect(read("今晚八点 看剧", early)).toBe("2026-12-08 20:00 | 看剧");
    expect(read("明天早上9点 开会", early)).toBe("2026-12-09 09:00 | 开会");
    expect(read("tomorrow 9am standup", early)).toBe("2026-12-09 09:00 | standup");
  });

  it("reads 下周一 on a Sunday as the next day, weeks running Monday to Sunday", () => {
    const sunday = "2026-12-13T21:30:00+08:00";
    expect(read("下周一 10:00 周会", sunday)).toBe("2026-12-14 10:00 | 周会");
    expect(read("下周日 9点 爬山", sunday)).toBe("2026-12-20 09:00 | 爬山");
  });

  it("reads nothing from words that are no time", () => {
    expect(read("交作业", tuesdayMorning)).toBeUndefined();
    expect(read("", tuesdayMorning)).toBeUndefined();
    expect(read(`${"啊".repeat(10_000)} 30分钟后`, tuesdayMorning)).toBeUndefined();
  });
});
