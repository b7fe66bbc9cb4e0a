import { describe, expect, it } from "vitest";
import { type HistoryEntry, HistoryWindows, windowFrom } from "../../src/agent/history-window.ts";

/** Messages m0…m{n-1}, each line `len` characters long. */
function entries(count: number, len = 9): HistoryEntry[] {
  return Array.from({ length: count }, (_, i) => ({ key: `m${i}`, line: `m${i}`.padEnd(len, ".") }));
}
const keys = (shown: HistoryEntry[]) => shown.map((entry) => entry.key);

describe("the history window arithmetic", () => {
  const bounds = { maxMessages: 10, maxChars: 1_000, dropFraction: 0.5 };

  it("starts a session with the newest messages that fit", () => {
    expect(keys(windowFrom(entries(14), undefined, bounds))).toEqual(keys(entries(14).slice(4)));
  });

  it("keeps its start while it grows and drops to half the bound when it overflows", () => {
    expect(keys(windowFrom(entries(14), "m4", bounds))).toHaveLength(10);
    expect(keys(windowFrom(entries(15), "m4", bounds))).toEqual(["m10", "m11", "m12", "m13", "m14"]);
  });

  it("steps on the character bound too, halving it", () => {
    const chars = { maxMessages: 100, maxChars: 100, dropFraction: 0.5 };
    // Ten-character lines (nine and a line break): ten fit in 100 characters, eleven do not.
    expect(keys(windowFrom(entries(10), "m0", chars))).toHaveLength(10);
    expect(keys(windowFrom(entries(11), "m0", chars))).toEqual(["m6", "m7", "m8", "m9", "m10"]);
  });

  it("steps when its start has left the messages read", () => {
    expect(keys(windowFrom(entries(8), "gone", bounds))).toEqual(["m3", "m4", "m5", "m6", "m7"]);
  });

  it("remembers each session's start, forgetting the least recently used beyond its bound", () => {
    const windows = new HistoryWindows(1);
    const linesOf = (shown: HistoryEntry[]) => shown.map((entry) => entry.line);
    expect(windows.select("a", entries(4), bounds)).toEqual(linesOf(entries(4)));
    expect(windows.select("a", entries(11), bounds)).toEqual(linesOf(entries(11).slice(6)));
    // "b" pushes "a" out: "a" starts again with a full window instead of stepping.
    windows.select("b", entries(2), bounds);
    expect(windows.select("a", entries(12), bounds)).toEqual(linesOf(entries(12).slice(2)));
  });

  it("slides by what no longer fits with dropFraction 0, as before stepping", () => {
    const sliding = { ...bounds, dropFraction: 0 };
    expect(keys(windowFrom(entries(11), "m0", sliding))).toEqual(keys(entries(11).slice(1)));
  });
});
