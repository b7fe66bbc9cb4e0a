import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinToolSpecs } from "../../src/agent/builtin-tools.ts";
import type { LlamaCppProviderConfig } from "../../src/llm/config.ts";
import { LlmClient } from "../../src/llm/llm-client.ts";
import type { LlmError, LlmUsageRecord, ToolSpec } from "../../src/llm/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import { createLocalModelStack, type LocalModelStack } from "../../src/models/local-model-stack.ts";
import { shippedPromptTemplates } from "../../src/prompts/templates.ts";
import { type TinyModelFolder, tinyModelFolder } from "./llama-fixture.ts";

const PICK_TOOL: ToolSpec = {
  name: "set_mood",
  description: "Sets the bot's mood.",
  parameters: {
    type: "object",
    properties: {
      mood: { type: "string", enum: ["calm", "grumpy", "rowdy"], description: "the new mood" },
      loud: { type: "boolean" },
      note: { type: "string", maxLength: 12 },
      times: { type: "integer", minimum: 1 },
    },
    required: ["mood", "loud", "note"],
    additionalProperties: false,
  },
};

describe("local model through the LLM client (tiny generated GGUF)", () => {
  let folder: TinyModelFolder;
  let stack: LocalModelStack;
  let usage: LlmUsageRecord[];
  let client: LlmClient;

  const provider = (model: string): LlamaCppProviderConfig => ({
    id: "local",
    type: "llama-cpp",
    model,
    threads: 1,
    contextSize: 4096,
    gpu: false,
    timeoutMs: 15_000,
  });

  beforeAll(() => {
    folder = tinyModelFolder();
    stack = createLocalModelStack(folder.dataDir, createLogger({ level: "silent" }));
    usage = [];
    client = new LlmClient({
      providers: [provider(folder.modelPath)],
      localModels: stack.models,
      models: { planner: ["local/tiny"], replyer: ["local/tiny"] },
      usage: (record) => usage.push(record),
      logger: createLogger({ level: "silent" }),
    });
  });

  afterAll(async () => {
    await stack.models.close();
    folder.remove();
  });

  it("loads on first use and answers the planner with a grammar-valid reply call", async () => {
    expect(stack.service.snapshot().models).toEqual([]);
    const result = await client.generate({
      task: "planner",
      messages: [
        { role: "system", content: "你是群里的一名普通成员。" },
        { role: "user", content: "Alice(30001): 紬，你好呀" },
      ],
      tools: builtinToolSpecs(shippedPromptTemplates("zh"), "planner"),
      toolChoice: "auto",
      maxOutputTokens: 200,
    });
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(call?.name).toBe("reply");
    expect(call?.invalidJson).toBeUndefined();
    // The model wrote null for each optional argument; those are dropped, leaving a valid call.
    expect(call?.input).toEqual({});
    expect(result).toMatchObject({ provider: "local", model: "tiny", finishReason: "tool-calls" });
    expect(result.usage.promptTokens).toBeGreaterThan(20);
    expect(result.usage.completionTokens).toBeGreaterThan(10);
    expect(usage.at(-1)).toMatchObject({ task: "planner", provider: "local", success: true });

    const [status] = stack.service.snapshot().models;
    expect(status).toMatchObject({
      state: "ready",
      threads: 1,
      contextSize: 4096,
      gpu: false,
      generations: 1,
    });
    expect(status?.memory?.modelBytes).toBeGreaterThan(100_000);
  });

  it("gives a plugin tool schema-valid enum, boolean and string arguments; free text would not be", async () => {
    const validate = new Ajv().compile(PICK_TOOL.parameters);
    const messages = [{ role: "user" as const, content: "Set your mood." }];
    const called = await client.generate({
      task: "planner",
      messages,
      tools: [PICK_TOOL],
      maxOutputTokens: 200,
    });
    const input = called.toolCalls[0]?.input;
    expect(called.toolCalls[0]?.name).toBe("set_mood");
    expect(validate(input), JSON.stringify(validate.errors)).toBe(true);
    expect(input).toMatchObject({ mood: "rowdy", note: "rrrrrrrrrrrr" });

    // Without the grammar the same model writes no JSON at all.
    const free = await client.generate({
      task: "planner",
      messages,
      tools: [PICK_TOOL],
      toolChoice: "none",
      maxOutputTokens: 120,
    });
    expect(free.toolCalls).toEqual([]);
    expect(free.finishReason).toBe("length");
    expect(free.usage.completionTokens).toBe(120);
    expect(free.text).toMatch(/^[\x20-\x7e]+$/);
    expect(() => JSON.parse(free.text)).toThrow();
  });

  it("queues concurrent requests on the one model and answers them all", async () => {
    const ask = (content: string) =>
      client.generate({ task: "replyer", messages: [{ role: "user", content }], maxOutputTokens: 100 });
    const answers = await Promise.all([ask("one"), ask("two"), ask("three")]);
    for (const answer of answers) expect(answer.usage.completionTokens).toBe(100);
    const [status] = stack.service.snapshot().models;
    expect(status?.queued).toBe(0);
    expect(status?.tokensPerSecond).toBeGreaterThan(50);
  });

  it("refuses a missing or corrupt model file with one clear error", async () => {
    const corrupt = join(folder.dataDir, "corrupt.gguf");
    writeFileSync(corrupt, Buffer.from("not a model at all"));
    const missing = join(folder.dataDir, "missing.gguf");
    const broken = new LlmClient({
      providers: [
        { ...provider(missing), id: "gone" },
        { ...provider(corrupt), id: "bad" },
        { ...provider("qwen2.5-1.5b-instruct-q4"), id: "notpulled" },
      ],
      localModels: stack.models,
      models: { replyer: ["gone/x", "bad/x", "notpulled/x"] },
      usage: () => {},
      logger: createLogger({ level: "silent" }),
    });
    const error = (await broken
      .generate({ task: "replyer", messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught)) as LlmError;
    expect(error.attempts.map((attempt) => attempt.message)).toEqual([
      `model file ${missing} is missing: point llm.providers[].model at a GGUF file`,
      `model file ${corrupt} is not a GGUF model (corrupt or incomplete): point llm.providers[].model at a GGUF file`,
      expect.stringMatching(
        /qwen2\.5-1\.5b-instruct-q4_k_m\.gguf is missing: run "npm run model -- pull qwen2\.5-1\.5b-instruct-q4"$/,
      ),
    ]);
    const statuses = stack.service.snapshot().models;
    expect(statuses.find((status) => status.providerId === "bad")).toMatchObject({ state: "failed" });
  });

  it("refuses a picture it cannot see instead of describing it blind", async () => {
    const error = (await client
      .generate({
        task: "replyer",
        messages: [
          { role: "user", content: "描述这张图片", images: [{ mime: "image/png", bytes: Uint8Array.of(1) }] },
        ],
      })
      .catch((caught: unknown) => caught)) as LlmError;
    expect(error.attempts.map((attempt) => attempt.message)).toEqual([
      "this local model cannot see pictures (llama-cpp runs text models only)",
    ]);
  });

  it("releases the model on close", async () => {
    await stack.models.close();
    expect(stack.service.snapshot().models).toEqual([]);
  });
});
