/**
 * PostgreSQL monitor event ids (src/store/postgres/event-ids.ts): ordered by time, unique per
 * instance slot, never decreasing — through a burst faster than the counter and a clock that
 * steps back.
 */
import { describe, expect, it } from "vitest";
import { EventIds } from "../../src/store/postgres/event-ids.ts";

const slotFromSequence = (slot: number) => ({ query: async <R>() => [{ slot }] as R[] });

describe("monitor event ids", () => {
  it("orders two instances' ids by time and never gives the same one", async () => {
    let now = Date.UTC(2026, 11, 1);
    const a = await EventIds.open(slotFromSequence(1), () => now);
    const b = await EventIds.open(slotFromSequence(2), () => now);
    const sameMs = [a.take(), b.take(), a.take(), b.take()];
    expect(new Set(sameMs).size).toBe(4);
    now += 1;
    const later = b.take();
    expect(later).toBeGreaterThan(Math.max(...sameMs));
    expect(Number.isSafeInteger(later)).toBe(true);
  });

  it("keeps increasing through a burst and a clock stepping back", async () => {
    let now = Date.UTC(2026, 11, 1);
    const ids = await EventIds.open(slotFromSequence(33), () => now);
    const given = Array.from({ length: 1_000 }, () => ids.take());
    now -= 60_000;
    given.push(ids.take(), ids.take());
    for (let i = 1; i < given.length; i++) expect(given[i]).toBeGreaterThan(given[i - 1]!);
    // 1,000 in one millisecond borrowed the next ones: an instance a few ms later starts above them.
    const other = await EventIds.open(slotFromSequence(2), () => Date.UTC(2026, 11, 1) + 20);
    expect(other.take()).toBeGreaterThan(given.at(-1)!);
  });
});
