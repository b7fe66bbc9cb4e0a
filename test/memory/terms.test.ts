import { describe, expect, it } from "vitest";
import { MAX_QUERY_TERMS, memoryMatchExpression, memoryTerms } from "../../src/memory/terms.ts";

describe("memory terms", () => {
  it("splits Chinese into overlapping bigrams and other text into lower-cased words", () => {
    expect(memoryTerms("下周二要去成都出差")).toEqual([
      "下周",
      "周二",
      "二要",
      "要去",
      "去成",
      "成都",
      "都出",
      "出差",
    ]);
    expect(memoryTerms("张三说 Tsumugi's ＡＰＩ v2 好")).toEqual([
      "张三",
      "三说",
      "tsumugi",
      "api",
      "v2",
      "好",
    ]);
    // Single latin letters and digits carry no meaning on their own.
    expect(memoryTerms("a 1 !! …")).toEqual([]);
  });

  it("matches any distinct term of a query, capped, and nothing for a query without terms", () => {
    expect(memoryMatchExpression("成都 成都 trip")).toBe('"成都" OR "trip"');
    expect(memoryMatchExpression("？！")).toBeUndefined();
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    expect(memoryMatchExpression(long)?.split(" OR ")).toHaveLength(MAX_QUERY_TERMS);
  });
});
