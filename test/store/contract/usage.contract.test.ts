import { expect, it } from "vitest";
import type { UsageRecord } from "../../../src/store/types.ts";
import { forEachBackend } from "./backends.ts";

const SESSION = "onebot:10000:group:20000";

function usage(overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    time: Date.UTC(2025, 4, 1, 10),
    task: "planner",
    provider: "main",
    model: "deepseek-chat",
    promptTokens: 1000,
    completionTokens: 50,
    latencyMs: 800,
    success: true,
    ...overrides,
  };
}

forEachBackend((backend) => {
  it("summarizes usage per UTC day, task and model, counting failures, since a time", async () => {
    const { usage: store } = await backend.open();
    store.record(usage({ time: Date.UTC(2025, 3, 30, 23), promptTokens: 1 })); // before sinceMs
    store.record(usage({ latencyMs: 600.4, replyId: "r1" }));
    store.record(usage({ time: Date.UTC(2025, 4, 1, 23, 59), latencyMs: 1000 }));
    store.record(
      usage({ success: false, error: "HTTP 429", promptTokens: 0, completionTokens: 0, latencyMs: 200 }),
    );
    store.record(
      usage({ task: "replyer", model: "deepseek-reasoner", promptTokens: 300, completionTokens: 30 }),
    );
    store.record(
      usage({
        time: Date.UTC(2025, 4, 2, 0, 0, 1),
        promptTokens: 7,
        completionTokens: 3,
        cachedPromptTokens: 4,
        cost: 0.5,
      }),
    );

    const day = (date: string, task: string, model: string) => ({ day: date, task, provider: "main", model });
    expect(await store.summarize({ sinceMs: Date.UTC(2025, 4, 1) })).toEqual([
      {
        ...day("2025-05-01", "planner", "deepseek-chat"),
        calls: 3,
        failures: 1,
        promptTokens: 2000,
        completionTokens: 100,
        cachedPromptTokens: 0,
        cost: null,
        averageLatencyMs: 600,
      },
      {
        ...day("2025-05-01", "replyer", "deepseek-reasoner"),
        calls: 1,
        failures: 0,
        promptTokens: 300,
        completionTokens: 30,
        cachedPromptTokens: 0,
        cost: null,
        averageLatencyMs: 800,
      },
      {
        ...day("2025-05-02", "planner", "deepseek-chat"),
        calls: 1,
        failures: 0,
        promptTokens: 7,
        completionTokens: 3,
        cachedPromptTokens: 4,
        cost: 0.5,
        averageLatencyMs: 800,
      },
    ]);
    expect(await store.summarize({ sinceMs: Date.UTC(2025, 5, 1) })).toEqual([]);
  });

  it("sums each UTC day's calls, tokens and costs per chat and model since a time, for the cost chart", async () => {
    const { usage: store } = await backend.open();
    const other = "onebot:10000:group:20001";
    store.record(usage({ time: Date.UTC(2025, 3, 30, 23), sessionId: SESSION, cost: 9 })); // before sinceMs
    store.record(usage({ sessionId: SESSION, cost: 0.25 }));
    store.record(
      usage({ sessionId: SESSION, task: "replyer", promptTokens: 10, completionTokens: 5, cost: 0.5 }),
    );
    store.record(usage({ sessionId: SESSION, model: "deepseek-reasoner", cost: 1 }));
    store.record(usage({ sessionId: other, success: false, promptTokens: 0, completionTokens: 0 }));
    store.record(usage({ promptTokens: 20, completionTokens: 2 })); // a console model test
    store.record(usage({ time: Date.UTC(2025, 4, 2, 0, 0, 1), sessionId: other, cost: 0.125 }));

    expect(await store.dailySpend({ sinceMs: Date.UTC(2025, 4, 1) })).toEqual([
      {
        day: "2025-05-01",
        sessionId: null,
        provider: "main",
        model: "deepseek-chat",
        calls: 1,
        tokens: 22,
        cost: null,
      },
      {
        day: "2025-05-01",
        sessionId: SESSION,
        provider: "main",
        model: "deepseek-chat",
        calls: 2,
        tokens: 1065,
        cost: 0.75,
      },
      {
        day: "2025-05-01",
        sessionId: SESSION,
        provider: "main",
        model: "deepseek-reasoner",
        calls: 1,
        tokens: 1050,
        cost: 1,
      },
      {
        day: "2025-05-01",
        sessionId: other,
        provider: "main",
        model: "deepseek-chat",
        calls: 1,
        tokens: 0,
        cost: null,
      },
      {
        day: "2025-05-02",
        sessionId: other,
        provider: "main",
        model: "deepseek-chat",
        calls: 1,
        tokens: 1050,
        cost: 0.125,
      },
    ]);
    expect(await store.dailySpend({ sinceMs: Date.UTC(2025, 5, 1) })).toEqual([]);
  });

  it("sums the tokens and recorded costs of each chat since a time, for the budgets", async () => {
    const { usage: store } = await backend.open();
    const other = "onebot:10000:group:20001";
    store.record(usage({ time: Date.UTC(2025, 4, 1, 9), sessionId: SESSION })); // before sinceMs
    store.record(usage({ sessionId: SESSION }));
    store.record(usage({ sessionId: SESSION, promptTokens: 5, completionTokens: 5, cost: 0.25 }));
    store.record(usage({ sessionId: SESSION, promptTokens: 0, completionTokens: 0, cost: 0.125 }));
    store.record(usage({ sessionId: other, success: false, promptTokens: 0, completionTokens: 0 }));
    store.record(usage({ promptTokens: 20, completionTokens: 2 })); // a console model test

    const rows = await store.spendBySession({ sinceMs: Date.UTC(2025, 4, 1, 10) });
    expect(rows.sort((a, b) => String(a.sessionId).localeCompare(String(b.sessionId)))).toEqual([
      { sessionId: null, tokens: 22, cost: 0 },
      { sessionId: SESSION, tokens: 1060, cost: 0.375 },
      { sessionId: other, tokens: 0, cost: 0 },
    ]);
  });

  it("sums the tokens of each user's turns since a time, for the per-user budget", async () => {
    const { usage: store } = await backend.open();
    store.record(usage({ time: Date.UTC(2025, 4, 1, 9), userKey: "onebot:30001" })); // before sinceMs
    store.record(usage({ sessionId: SESSION, userKey: "onebot:30001" }));
    store.record(
      usage({ sessionId: "onebot:10000:private:30001", userKey: "onebot:30001", promptTokens: 5 }),
    );
    store.record(usage({ sessionId: SESSION, userKey: "stdio.webchat:30001", completionTokens: 1, cost: 2 }));
    store.record(usage({ sessionId: SESSION })); // a digest: nobody's turn

    const rows = await store.spendByUser({ sinceMs: Date.UTC(2025, 4, 1, 10) });
    expect(rows.sort((a, b) => a.userKey.localeCompare(b.userKey))).toEqual([
      { userKey: "onebot:30001", tokens: 1105, cost: 0 },
      { userKey: "stdio.webchat:30001", tokens: 1001, cost: 2 },
    ]);
  });

  it("writes each call with its error and reply id on close and refuses records afterwards", async () => {
    const stores = await backend.open();
    stores.usage.record(usage({ success: false, error: "HTTP 429", replyId: "r9", sessionId: SESSION }));
    stores.usage.record(usage());
    await stores.close();

    expect(() => stores.usage.record(usage())).toThrow("llm_usage store is closed");
    const rows = await backend.committedRows(
      backend.urlOf(stores),
      "SELECT success, error, reply_id, session_id FROM llm_usage ORDER BY id",
    );
    expect(rows).toEqual([
      { success: 0, error: "HTTP 429", reply_id: "r9", session_id: SESSION },
      { success: 1, error: null, reply_id: null, session_id: null },
    ]);
    const again = await backend.open(backend.urlOf(stores));
    expect(await again.usage.summarize({ sinceMs: 0 })).toMatchObject([{ calls: 2, failures: 1 }]);
  });
});
