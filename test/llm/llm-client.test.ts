import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LlmProviderConfig, RemoteProviderConfig } from "../../src/llm/config.ts";
import { LlmClient } from "../../src/llm/llm-client.ts";
import { parseModelRef } from "../../src/llm/model-ref.ts";
import { LlmError, type LlmRequest, type LlmUsageRecord } from "../../src/llm/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";

const API_KEY = "sk-test-0123456789abcdef";

const REPLY_TOOL = {
  name: "reply",
  description: "Reply to the group",
  parameters: {
    type: "object",
    properties: { msg_id: { type: "string" }, set_quote: { type: "boolean" } },
  },
};

let llm: ScriptedLlmServer;

beforeEach(async () => {
  llm = await ScriptedLlmServer.start();
});

afterEach(async () => {
  await llm.close();
});

function providerConfig(id: string, overrides: Partial<RemoteProviderConfig> = {}): RemoteProviderConfig {
  return {
    id,
    type: "openai-compatible",
    baseUrl: llm.baseUrl,
    apiKey: API_KEY,
    timeoutMs: 5_000,
    maxRetries: 2,
    headers: {},
    ...overrides,
  };
}

interface Harness {
  client: LlmClient;
  usage: LlmUsageRecord[];
  /** Every backoff the client asked for, in ms. */
  delays: number[];
  logLines: string[];
}

function harness(
  models: Record<string, string[]>,
  providers: LlmProviderConfig[] = [providerConfig("main"), providerConfig("backup")],
): Harness {
  const usage: LlmUsageRecord[] = [];
  const delays: number[] = [];
  const logLines: string[] = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => logLines.push(line) },
  });
  const client = new LlmClient({
    providers,
    models,
    usage: (record) => usage.push(record),
    logger,
    retryBaseDelayMs: 50,
    sleep: async (ms) => {
      delays.push(ms);
    },
  });
  return { client, usage, delays, logLines };
}

function plannerRequest(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    task: "planner",
    messages: [
      { role: "system", content: "你是群里的一名普通成员" },
      { role: "user", content: "[小明] 紬，早上好" },
    ],
    tools: [REPLY_TOOL],
    replyId: "r-1",
    ...overrides,
  };
}

describe("LlmClient against an OpenAI-compatible server", () => {
  it("returns a text answer with usage, provider and model", async () => {
    const { client, usage } = harness({ replyer: ["main/deepseek-chat"] });
    llm.enqueue({ text: "早上好呀", usage: { promptTokens: 120, completionTokens: 4 } });

    const result = await client.generate({
      task: "replyer",
      messages: [
        { role: "system", content: "persona" },
        { role: "user", content: "早上好" },
      ],
      temperature: 0.7,
      maxOutputTokens: 256,
      replyId: "r-7",
    });

    expect(result).toMatchObject({
      text: "早上好呀",
      toolCalls: [],
      usage: { promptTokens: 120, completionTokens: 4 },
      provider: "main",
      model: "deepseek-chat",
      finishReason: "stop",
    });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const body = llm.requests[0]?.body;
    expect(body).toMatchObject({ model: "deepseek-chat", temperature: 0.7, max_tokens: 256 });
    expect(body?.messages).toEqual([
      { role: "system", content: "persona" },
      { role: "user", content: "早上好" },
    ]);
    expect(llm.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(usage).toEqual([
      expect.objectContaining({
        task: "replyer",
        provider: "main",
        model: "deepseek-chat",
        promptTokens: 120,
        completionTokens: 4,
        success: true,
        replyId: "r-7",
      }),
    ]);
  });

  it("sends tools in OpenAI format and returns the tool call with parsed arguments", async () => {
    const { client } = harness({ planner: ["main/deepseek-chat"] });
    llm.enqueue({
      toolCalls: [{ id: "call_a", name: "reply", arguments: { msg_id: "42", set_quote: true } }],
    });

    const result = await client.generate(plannerRequest({ toolChoice: "required" }));

    expect(result.toolCalls).toEqual([
      { id: "call_a", name: "reply", input: { msg_id: "42", set_quote: true } },
    ]);
    expect(result.finishReason).toBe("tool-calls");
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    const body = llm.lastRequestWithTool("reply")?.body;
    expect(body?.tools).toEqual([
      {
        type: "function",
        function: { name: "reply", description: REPLY_TOOL.description, parameters: REPLY_TOOL.parameters },
      },
    ]);
    expect(body?.tool_choice).toBe("required");
  });

  it("returns malformed JSON arguments as invalidJson instead of throwing", async () => {
    const { client } = harness({ planner: ["main/deepseek-chat"] });
    llm.enqueue({ toolCalls: [{ id: "call_bad", name: "reply", arguments: '{"msg_id": "42",' }] });

    const result = await client.generate(plannerRequest());

    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({
      id: "call_bad",
      name: "reply",
      invalidJson: '{"msg_id": "42",',
    });
    expect(llm.requests).toHaveLength(1);
  });

  it("carries a previous round's tool calls and results into the next request", async () => {
    const { client } = harness({ planner: ["main/deepseek-chat"] });
    llm.enqueue({ text: "" });

    await client.generate(
      plannerRequest({
        messages: [
          { role: "system", content: "persona" },
          { role: "user", content: "查一下天气" },
          {
            role: "assistant",
            content: "",
            toolCalls: [{ id: "call_1", name: "weather", input: { city: "上海" } }],
          },
          {
            role: "tool",
            results: [{ toolCallId: "call_1", toolName: "weather", output: { temp: 21, sky: "晴" } }],
          },
          { role: "assistant", content: "", toolCalls: [{ id: "call_2", name: "reply", input: {} }] },
          {
            role: "tool",
            results: [{ toolCallId: "call_2", toolName: "reply", output: "msg_id not found", isError: true }],
          },
        ],
      }),
    );

    const messages = llm.requests[0]?.body.messages ?? [];
    expect(messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"上海"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"temp":21,"sky":"晴"}' },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "call_2", type: "function", function: { name: "reply", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "call_2", content: "msg_id not found" },
    ]);
  });

  it("retries a 500 on the same model and reports both attempts", async () => {
    const { client, usage, delays, logLines } = harness({ planner: ["main/deepseek-chat", "backup/other"] });
    llm.enqueue({ status: 500, body: { error: { message: "upstream overloaded" } } }, { text: "ok" });

    const result = await client.generate(plannerRequest());

    expect(result).toMatchObject({ text: "ok", provider: "main", model: "deepseek-chat" });
    expect(llm.requests.map((request) => request.body.model)).toEqual(["deepseek-chat", "deepseek-chat"]);
    expect(delays).toEqual([50]);
    expect(usage.map((record) => [record.success, record.provider])).toEqual([
      [false, "main"],
      [true, "main"],
    ]);
    expect(usage[0]?.error).toContain("upstream overloaded");
    expect(logLines).toHaveLength(1);
    expect(JSON.parse(logLines[0] ?? "{}")).toMatchObject({
      provider: "main",
      model: "deepseek-chat",
      status: 500,
      replyId: "r-1",
    });
  });

  it("warns once for a call whose every attempt failed, the same failure counted, not repeated", async () => {
    const { client, logLines } = harness({ planner: ["main/deepseek-chat"] });
    const overloaded = { status: 500, body: { error: { message: "upstream overloaded" } } };
    llm.enqueue(overloaded, overloaded, overloaded);

    await expect(client.generate(plannerRequest())).rejects.toThrow(LlmError);

    const warnings = logLines.map((line) => JSON.parse(line)).filter((line) => line.level >= 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ task: "planner", replyId: "r-1", attempts: 3 });
    expect(warnings[0].msg).toMatch(/^LLM call failed: main\/deepseek-chat: .*upstream overloaded.* \(×3\)$/);
  });

  it("treats a junk answer (200 with a body that is not a completion) as a failed attempt and moves on", async () => {
    const { client, usage } = harness({ planner: ["main/deepseek-chat", "backup/other"] });
    llm.enqueue({ status: 200, body: "<html>gateway error</html>" }, { text: "from the backup" });

    const result = await client.generate(plannerRequest());

    expect(result).toMatchObject({ text: "from the backup", provider: "backup" });
    expect(usage.map((record) => [record.success, record.provider])).toEqual([
      [false, "main"],
      [true, "backup"],
    ]);
  });

  it("waits as long as a 429's retry-after asks, then retries", async () => {
    const { client, delays } = harness({ planner: ["main/deepseek-chat"] });
    llm.enqueue({ status: 429, headers: { "retry-after": "2" } }, { text: "ok" });

    const result = await client.generate(plannerRequest());

    expect(result.text).toBe("ok");
    expect(delays).toEqual([2_000]);
  });

  it("moves to the next model instead of waiting out a long retry-after", async () => {
    const { client, delays } = harness({ planner: ["main/deepseek-chat", "backup/other"] });
    llm.enqueue({ status: 429, headers: { "retry-after": "120" } }, { text: "from backup" });

    const result = await client.generate(plannerRequest());

    expect(result).toMatchObject({ text: "from backup", provider: "backup", model: "other" });
    expect(delays).toEqual([]);
  });

  it("falls back to the second model when every attempt on the first fails, with growing backoff", async () => {
    const { client, usage, delays } = harness({ planner: ["main/deepseek-chat", "backup/other"] });
    llm.enqueue({ status: 500 }, { status: 502 }, { status: 503 }, { text: "from backup" });

    const result = await client.generate(plannerRequest());

    expect(result).toMatchObject({ text: "from backup", provider: "backup", model: "other" });
    expect(llm.requests.map((request) => request.body.model)).toEqual([
      "deepseek-chat",
      "deepseek-chat",
      "deepseek-chat",
      "other",
    ]);
    expect(delays).toEqual([50, 100]);
    expect(usage.map((record) => record.success)).toEqual([false, false, false, true]);
  });

  it("goes to the next model on 401 without retrying and never logs the API key", async () => {
    const { client, delays, usage, logLines } = harness({ planner: ["main/deepseek-chat", "backup/other"] });
    llm.enqueue(
      { status: 401, body: { error: { message: `Incorrect API key provided: ${API_KEY}` } } },
      { text: "ok" },
    );

    const result = await client.generate(plannerRequest());

    expect(result.provider).toBe("backup");
    expect(delays).toEqual([]);
    expect(usage[0]).toMatchObject({ success: false, provider: "main" });
    expect(usage[0]?.error).toContain("Incorrect API key provided: ***");
    expect(logLines.join("\n")).not.toContain(API_KEY);
    expect(JSON.parse(logLines[0] ?? "{}")).toMatchObject({ status: 401, provider: "main" });
  });

  it("gives up on a model that does not answer within timeoutMs and uses the next", async () => {
    const { client, usage } = harness({ planner: ["main/slow", "backup/fast"] }, [
      providerConfig("main", { timeoutMs: 150, maxRetries: 0 }),
      providerConfig("backup"),
    ]);
    // Answers by model, so the script holds even if the slow request is slow to arrive.
    const byModel = (request: RecordedLlmRequest) =>
      request.body.model === "slow" ? { text: "too late", delayMs: 2_000 } : { text: "fast answer" };
    llm.enqueue(byModel, byModel);

    const started = performance.now();
    const result = await client.generate(plannerRequest());

    expect(result).toMatchObject({ text: "fast answer", provider: "backup" });
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(usage[0]).toMatchObject({ success: false, error: "timed out after 150 ms", model: "slow" });
  });

  it("retries network failures, then falls back", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { client, usage, delays } = harness({ planner: ["down/model", "main/deepseek-chat"] }, [
      providerConfig("down", { baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1 }),
      providerConfig("main"),
    ]);
    llm.enqueue({ text: "ok" });

    const result = await client.generate(plannerRequest());

    expect(result.provider).toBe("main");
    expect(delays).toEqual([50]);
    expect(usage.filter((record) => record.provider === "down")).toHaveLength(2);
  });

  it("throws no_model when the task has no models configured", async () => {
    const { client } = harness({ planner: ["main/deepseek-chat"] });

    const failure = await client
      .generate(plannerRequest({ task: "summary" }))
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(LlmError);
    expect(failure).toMatchObject({ kind: "no_model", task: "summary" });
    expect((failure as LlmError).message).toContain("llm.models.summary");
    expect(llm.requests).toHaveLength(0);
  });

  it("throws all_failed listing every attempt when no model answers", async () => {
    const { client } = harness({ planner: ["main/deepseek-chat", "backup/other"] }, [
      providerConfig("main", { maxRetries: 0 }),
      providerConfig("backup", { maxRetries: 0 }),
    ]);
    llm.enqueue({ status: 500 }, { status: 400, body: { error: { message: "bad request" } } });

    const failure = (await client.generate(plannerRequest()).catch((error: unknown) => error)) as LlmError;

    expect(failure.kind).toBe("all_failed");
    expect(failure.attempts).toEqual([
      { provider: "main", model: "deepseek-chat", status: 500, message: expect.stringContaining("HTTP 500") },
      { provider: "backup", model: "other", status: 400, message: expect.stringContaining("bad request") },
    ]);
  });

  it("stops at once without falling back when the caller aborts", async () => {
    const { client } = harness({ planner: ["main/deepseek-chat", "backup/other"] });
    const controller = new AbortController();
    llm.enqueue(
      () => {
        setTimeout(() => controller.abort(), 20);
        return { text: "slow", delayMs: 2_000 };
      },
      { text: "should not be asked" },
    );

    const failure = await client
      .generate(plannerRequest({ signal: controller.signal }))
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ kind: "aborted" });
    expect(llm.requests).toHaveLength(1);
  });

  it("resends without temperature when a model rejects it, and remembers that", async () => {
    const { client, delays } = harness({ planner: ["main/o3-mini"] });
    llm.enqueue(
      (request) =>
        request.body.temperature === undefined
          ? { text: "unexpected" }
          : {
              status: 400,
              body: {
                error: { message: "Unsupported parameter: 'temperature' is not supported with this model." },
              },
            },
      { text: "first" },
      { text: "second" },
    );

    const first = await client.generate(plannerRequest({ temperature: 0.5 }));
    const second = await client.generate(plannerRequest({ temperature: 0.5 }));

    expect([first.text, second.text]).toEqual(["first", "second"]);
    expect(llm.requests.map((request) => request.body.temperature)).toEqual([0.5, undefined, undefined]);
    expect(delays).toEqual([]);
  });

  it("sends a model name containing slashes verbatim (split at the first slash)", async () => {
    const { client } = harness({ planner: ["main/Qwen/Qwen2.5-7B-Instruct"] });
    llm.enqueue({ text: "ok" });

    const result = await client.generate(plannerRequest());

    expect(result.model).toBe("Qwen/Qwen2.5-7B-Instruct");
    expect(llm.requests[0]?.body.model).toBe("Qwen/Qwen2.5-7B-Instruct");
  });

  it("lets the openai provider send max_completion_tokens and no temperature to reasoning models", async () => {
    const { client } = harness({ planner: ["oa/o3-mini"], replyer: ["oa/gpt-4o-mini"] }, [
      providerConfig("oa", { type: "openai" }),
    ]);
    llm.enqueue({ text: "reasoned" }, { text: "plain" });

    await client.generate(plannerRequest({ temperature: 0.5, maxOutputTokens: 300 }));
    await client.generate(plannerRequest({ task: "replyer", temperature: 0.5, maxOutputTokens: 300 }));

    const [reasoning, plain] = llm.requests.map((request) => request.body);
    expect(reasoning).toMatchObject({ model: "o3-mini", max_completion_tokens: 300 });
    expect(reasoning?.temperature).toBeUndefined();
    expect(reasoning?.max_tokens).toBeUndefined();
    expect(reasoning?.messages[0]?.role).toBe("developer");
    expect(plain).toMatchObject({ model: "gpt-4o-mini", max_tokens: 300, temperature: 0.5 });
    expect(plain?.messages[0]?.role).toBe("system");
  });

  it("reports unavailable local models and unknown providers as failed attempts and uses the next model", async () => {
    const { client, usage } = harness({ planner: ["local/qwen", "nowhere/x", "main/deepseek-chat"] }, [
      {
        id: "local",
        type: "llama-cpp",
        model: "x.gguf",
        threads: 1,
        contextSize: 4096,
        gpu: false,
        timeoutMs: 5_000,
      },
      providerConfig("main"),
    ]);
    llm.enqueue({ text: "ok" });

    const result = await client.generate(plannerRequest());

    expect(result.provider).toBe("main");
    expect(usage.slice(0, 2)).toEqual([
      expect.objectContaining({
        provider: "local",
        error: "provider local (llama-cpp): local models are not available here",
      }),
      expect.objectContaining({
        provider: "nowhere",
        error: expect.stringContaining("unknown LLM provider"),
      }),
    ]);
  });
});

describe("parseModelRef", () => {
  it("splits at the first slash", () => {
    expect(parseModelRef("main/deepseek-chat")).toEqual({ provider: "main", model: "deepseek-chat" });
    expect(parseModelRef("main/Qwen/Qwen2.5-7B")).toEqual({ provider: "main", model: "Qwen/Qwen2.5-7B" });
  });

  it("rejects references without a provider or a model", () => {
    expect(() => parseModelRef("deepseek-chat")).toThrow(/provider\/model/);
    expect(() => parseModelRef("/x")).toThrow(/provider\/model/);
    expect(() => parseModelRef("main/")).toThrow(/provider\/model/);
  });
});
