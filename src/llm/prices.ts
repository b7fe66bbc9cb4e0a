import { problemAt } from "../schema/key-path.ts";
import type { UsageRecord } from "../store/types.ts";
import type { LlmSettings } from "./config.ts";

export type Prices = LlmSettings["prices"];

const PER_TOKENS = 1_000_000;

/**
 * The usage record with what the call cost at `prices` (per million tokens; cached prompt
 * tokens at `cachedInput` where the provider reported them); unchanged when its model has no
 * price. Failed calls cost nothing: providers bill only answers.
 */
export function withCost(record: UsageRecord, prices: Prices): UsageRecord {
  const price = prices[`${record.provider}/${record.model}`];
  if (!price) return record;
  const cached = Math.min(record.cachedPromptTokens ?? 0, record.promptTokens);
  const cost =
    ((record.promptTokens - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      record.completionTokens * price.output) /
    PER_TOKENS;
  return { ...record, cost };
}

/** The currency every price is in (the first's; `findPriceProblems` keeps them one). */
export function currencyOf(prices: Prices): string | undefined {
  return Object.values(prices)[0]?.currency;
}

/** Costs are summed across models, so every price must be in one currency. */
export function findPriceProblems(prices: Prices): string[] {
  const currency = currencyOf(prices);
  return Object.entries(prices).flatMap(([ref, price]) =>
    price.currency === currency
      ? []
      : [
          problemAt(
            ["llm", "prices", ref, "currency"],
            `must be ${currency}, as the other prices: costs are added up across models`,
          ),
        ],
  );
}
