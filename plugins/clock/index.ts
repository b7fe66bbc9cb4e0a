import { Plugin, Tool } from "tsumugi/sdk";

interface ClockConfig {
  timezone: string;
}

/**
 * A class-style tool plugin. The tool returns an object, so the model sees it and the
 * planner runs again to answer with it.
 */
export default class ClockPlugin extends Plugin<ClockConfig> {
  @Tool("current_time", {
    description: "查询现在的日期、时间和星期。被问到时间、日期、星期几时使用。",
    parameters: [
      { name: "timezone", type: "string", description: "IANA 时区，例如 Asia/Tokyo；省略时用默认时区" },
    ],
    timeout_ms: 2_000,
  })
  currentTime(args: { timezone?: string }) {
    const timezone = args.timezone ?? this.config.timezone;
    const now = new Date();
    // An unknown time zone throws a RangeError, which the model sees as the tool's error.
    const local = new Intl.DateTimeFormat("zh-CN", {
      timeZone: timezone,
      dateStyle: "full",
      timeStyle: "medium",
    }).format(now);
    return { timezone, local_time: local, iso_time: now.toISOString() };
  }
}
