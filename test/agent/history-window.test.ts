import { describe, expect, it } from "vitest";
import { type HistoryEntry, HistoryWindows, windowFrom } from "../../src/agent/history-window.ts";

/** Messages m0…m{n-1}, each line `len` characters long. */
function entries(count: number, len = 9): HistoryEntry[] {
  return Array.from({ length: count }, (_, i) => ({ key: `m${i}`, line: `m${i}`.padEnd(len, ".") }));
}
const keys = (shown: HistoryEntry[]) => shown.map((entry) => entry.key);

describe("the history window arithmetic", () => {
  // Growth 1: the window within maxMessages and maxChars, as before it grew beyond them.
  const bounds = { maxMessages: 10, maxChars: 1_000, dropFraction: 0.5, growth: 1 };

  it("starts a session with the newest messages that fit", () => {
    expect(keys(windowFrom(entries(14), undefined, bounds))).toEqual(keys(entries(14).slice(4)));
  });

  it("keeps its start while it grows and drops to half the bound when it overflows", () => {
    expect(keys(windowFrom(entries(14), "m4", bounds))).toHaveLength(10);
    expect(keys(windowFrom(entries(15), "m4", bounds))).toEqual(["m10", "m11", "m12", "m13", "m14"]);
  });

  it("steps on the character bound too, halving it", () => {
    const chars = { maxMessages: 100, maxChars: 100, dropFraction: 0.5, growth: 1 };
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

describe("a window that grows beyond maxMessages, so a busy chat steps once in many turns", () => {
  const growing = { maxMessages: 10, maxChars: 1_000, dropFraction: 0.5, growth: 3 };

  it("starts with maxMessages, keeps its start up to growth × maxMessages, then steps back to half of maxMessages", () => {
    expect(keys(windowFrom(entries(40), undefined, growing))).toEqual(keys(entries(40).slice(30)));
    expect(keys(windowFrom(entries(34), "m4", growing))).toEqual(keys(entries(34).slice(4)));
    expect(keys(windowFrom(entries(35), "m4", growing))).toEqual(["m30", "m31", "m32", "m33", "m34"]);
  });

  it("grows its characters to growth × maxChars too", () => {
    const chars = { maxMessages: 100, maxChars: 100, dropFraction: 0.5, growth: 2 };
    // Ten-character lines: twenty fit in 200 characters, twenty-one do not.
    expect(keys(windowFrom(entries(20), "m0", chars))).toHaveLength(20);
    expect(keys(windowFrom(entries(21), "m0", chars))).toEqual(["m16", "m17", "m18", "m19", "m20"]);
  });

  it("names the messages a session's next window is chosen among: from its last start, else the newest maxMessages", () => {
    const windows = new HistoryWindows();
    const key = (entry: HistoryEntry) => entry.key;
    expect(keys(windows.candidates("a", entries(40), key, growing))).toEqual(keys(entries(40).slice(30)));
    windows.select("a", entries(40), growing);
    expect(keys(windows.candidates("a", entries(46), key, growing))).toEqual(keys(entries(46).slice(30)));
  });
});
