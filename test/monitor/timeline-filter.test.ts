import { describe, expect, it } from "vitest";
import { isTimelineEvent } from "../../src/monitor/timeline-filter.ts";

describe("the timeline filter", () => {
  it("leaves untriggered messages off the timeline", () => {
    const base = { type: "message.ingested" as const, time: 0, data: {} };
    expect(isTimelineEvent({ ...base, data: { trigger: null } })).toBe(false);
    expect(isTimelineEvent({ ...base, data: { trigger: "mention" } })).toBe(true);
    expect(isTimelineEvent({ type: "planner.round", time: 0, data: {} })).toBe(true);
  });
});
