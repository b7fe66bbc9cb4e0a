import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LlmClient } from "../../src/llm/llm-client.ts";
import type { LlmError } from "../../src/llm/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import { type ChatCompletionBody, ScriptedLlmServer } from "../support/scripted-llm-server.ts";

let llm: ScriptedLlmServer;

beforeEach(async () => {
  llm = await ScriptedLlmServer.start({ models: ["deepseek-chat", "qwen"] });
});

afterEach(async () => {
  await llm.close();
});

function chat(body: Partial<ChatCompletionBody>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${llm.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "deepseek-chat", messages: [], ...body }),
    signal,
  });
}

const REPLY_TOOL = { type: "function", function: { name: "reply", parameters: { type: "object" } } } as const;

describe("ScriptedLlmServer", () => {
  it("lists its models", async () => {
    const response = await fetch(`${llm.baseUrl}/models`);
    const body = (await response.json()) as { data: Array<{ id: string }> };

    expect(body.data.map((model) => model.id)).toEqual(["deepseek-chat", "qwen"]);
  });

  it("answers tool calls in OpenAI format with the model echoed and consistent usage", async () => {
    llm.enqueue({
      toolCalls: [
        { name: "reply", arguments: { set_quote: true } },
        { name: "wait", arguments: "{" },
      ],
    });

    const response = await chat({
      model: "qwen",
      messages: [{ role: "user", content: "早上好".repeat(40) }],
    });
    const body = (await response.json()) as {
      model: string;
      choices: Array<{ finish_reason: string; message: { content: string | null; tool_calls: unknown[] } }>;
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    };

    expect(body.model).toBe("qwen");
    expect(body.choices[0]?.finish_reason).toBe("tool_calls");
    expect(body.choices[0]?.message.content).toBeNull();
    expect(body.choices[0]?.message.tool_calls).toEqual([
      { id: "call_0_0", type: "function", function: { name: "reply", arguments: '{"set_quote":true}' } },
      { id: "call_0_1", type: "function", function: { name: "wait", arguments: "{" } },
    ]);
    expect(body.usage.prompt_tokens).toBeGreaterThan(20);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it("lets a function step answer from the request it sees", async () => {
    llm.enqueue((request) => ({ text: `you said: ${request.body.messages.at(-1)?.content}` }));

    const response = await chat({ messages: [{ role: "user", content: "ping" }] });
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };

    expect(body.choices[0]?.message.content).toBe("you said: ping");
  });

  it("answers a clear 500 and records the request when the script runs out", async () => {
    const response = await chat({ tools: [REPLY_TOOL] });
    const body = (await response.json()) as { error: { message: string } };

    expect(response.status).toBe(500);
    expect(body.error.message).toContain("script exhausted");
    expect(body.error.message).toContain("tools: reply");
    expect(llm.unscriptedRequests).toHaveLength(1);
  });

  it("surfaces an exhausted script through LlmClient as a readable error", async () => {
    const client = new LlmClient({
      providers: [
        {
          id: "main",
          type: "openai-compatible",
          baseUrl: llm.baseUrl,
          apiKey: "test",
          timeoutMs: 5_000,
          maxRetries: 0,
          headers: {},
        },
      ],
      models: { planner: ["main/deepseek-chat"] },
      usage: () => {},
      logger: createLogger({ level: "silent" }),
    });

    const failure = (await client
      .generate({ task: "planner", messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error)) as LlmError;

    expect(failure.kind).toBe("all_failed");
    expect(failure.message).toContain("script exhausted");
  });

  it("tells planner requests from replyer requests by their tools and exposes the prompt text", async () => {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好的" });

    await chat({ tools: [REPLY_TOOL], messages: [{ role: "system", content: "persona: 紬" }] });
    await chat({ messages: [{ role: "user", content: "extra_prompt: 语气可爱" }] });

    expect(llm.requestsWithTool("reply").map((request) => request.index)).toEqual([0]);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("persona: 紬");
    expect(llm.lastRequestWithoutTool("reply")?.promptText).toContain("extra_prompt: 语气可爱");
    expect(llm.remainingSteps).toBe(0);
  });

  it("keeps serving after a client gives up during a delayed answer", async () => {
    const controller = new AbortController();
    llm.enqueue(
      () => {
        controller.abort();
        return { text: "late", delayMs: 100 };
      },
      { text: "next" },
    );

    const aborted = await chat({}, controller.signal).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const response = await chat({});
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };

    expect(aborted).toBeInstanceOf(Error);
    expect(body.choices[0]?.message.content).toBe("next");
  });

  it("sends scripted failures with their status, body and headers", async () => {
    llm.enqueue({ status: 429, body: "slow down", headers: { "retry-after": "3" } });

    const response = await chat({});

    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(await response.text()).toBe("slow down");
  });
});
