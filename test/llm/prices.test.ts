import { describe, expect, it } from "vitest";
import { findPriceProblems, withCost } from "../../src/llm/prices.ts";
import type { UsageRecord } from "../../src/store/types.ts";

const call: UsageRecord = {
  time: 0,
  task: "planner",
  provider: "main",
  model: "deepseek-chat",
  promptTokens: 1_000_000,
  completionTokens: 500_000,
  latencyMs: 1,
  success: true,
};

describe("the cost of a call", () => {
  it("prices prompt, cached prompt and completion tokens per million", () => {
    const prices = { "main/deepseek-chat": { input: 2, output: 8, cachedInput: 0.5, currency: "CNY" } };
    expect(withCost(call, prices).cost).toBe(2 + 4);
    expect(withCost({ ...call, cachedPromptTokens: 600_000 }, prices).cost).toBeCloseTo(0.8 + 0.3 + 4, 9);
  });

  it("prices cached tokens at the input price without a cachedInput, and leaves unpriced models alone", () => {
    const prices = { "main/deepseek-chat": { input: 2, output: 8, currency: "CNY" } };
    expect(withCost({ ...call, cachedPromptTokens: 600_000 }, prices).cost).toBe(6);
    expect(withCost({ ...call, model: "other" }, prices)).not.toHaveProperty("cost");
  });

  it("refuses prices in two currencies, naming the key", () => {
    expect(
      findPriceProblems({
        "main/a": { input: 1, output: 1, currency: "CNY" },
        "main/b": { input: 1, output: 1, currency: "USD" },
      }),
    ).toEqual([expect.stringMatching(/^llm\.prices.*main\/b.*currency: must be CNY/)]);
  });
});
