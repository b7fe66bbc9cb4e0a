import { readFileSync } from "node:fs";

/** One recorded frame of test/fixtures/onebot/ and the implementation source file it follows. */
export interface OneBotFixture {
  source: string;
  frame: Record<string, unknown>;
}

/** Reads `test/fixtures/onebot/<implementation>/<name>.json`. */
export function oneBotFixture(name: string): OneBotFixture {
  const url = new URL(`../fixtures/onebot/${name}.json`, import.meta.url);
  const fixture = JSON.parse(readFileSync(url, "utf8")) as OneBotFixture;
  if (typeof fixture.source !== "string" || typeof fixture.frame !== "object" || fixture.frame === null) {
    throw new Error(`fixture ${name} lacks its source or frame`);
  }
  return fixture;
}

/**
 * The fixture's frame about a message the test pushed: its `message_id` (and the ids of the
 * chat it names) replaced by the test's, everything else as the implementation sends it.
 */
export function frameAbout(name: string, ids: Record<string, number | string>): Record<string, unknown> {
  const { frame } = oneBotFixture(name);
  const replaced = Object.fromEntries(
    Object.entries(ids).map(([field, id]) => [
      field,
      typeof id === "string" && /^\d+$/.test(id) ? Number(id) : id,
    ]),
  );
  return { ...frame, ...replaced, time: Math.floor(Date.now() / 1000) };
}
