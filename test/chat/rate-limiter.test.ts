import { describe, expect, it } from "vitest";
import { SlidingWindowCounter } from "../../src/chat/rate-limiter.ts";

const T0 = 1_700_000_000_000;

describe("sliding window counter", () => {
  it("counts the events of the last window only, per key", () => {
    const counter = new SlidingWindowCounter(60_000);
    counter.record("alice", T0);
    counter.record("alice", T0 + 30_000);
    counter.record("bob", T0 + 30_000);
    expect(counter.count("alice", T0 + 59_999)).toBe(2);
    expect(counter.count("alice", T0 + 60_000)).toBe(1);
    expect(counter.count("bob", T0 + 60_000)).toBe(1);
    expect(counter.count("alice", T0 + 90_000)).toBe(0);
  });

  it("does not let a burst at a minute's end and the next minute's start add up to twice the limit", () => {
    const counter = new SlidingWindowCounter(60_000);
    for (let i = 0; i < 3; i++) counter.record("alice", T0 + 59_000 + i);
    expect(counter.count("alice", T0 + 61_000)).toBe(3);
  });

  it("says when a key falls below the limit again", () => {
    const counter = new SlidingWindowCounter(60_000);
    counter.record("alice", T0);
    counter.record("alice", T0 + 10_000);
    counter.record("alice", T0 + 20_000);
    expect(counter.freesAt("alice", 3, T0 + 25_000)).toBe(T0 + 60_000);
    expect(counter.freesAt("alice", 2, T0 + 25_000)).toBe(T0 + 70_000);
    expect(counter.freesAt("alice", 4, T0 + 25_000)).toBe(T0 + 25_000);
  });
});
