import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LlmClient } from "../../src/llm/llm-client.ts";
import { LlmError, type LlmTextSink, type LlmUsageRecord } from "../../src/llm/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";

let llm: ScriptedLlmServer;

beforeEach(async () => {
  llm = await ScriptedLlmServer.start();
});

afterEach(async () => {
  await llm.close();
});

/** A replyer client over the scripted server: `main` times out after `timeoutMs`, `backup` does not. */
function streamingClient(timeoutMs = 5_000): { client: LlmClient; usage: LlmUsageRecord[] } {
  const usage: LlmUsageRecord[] = [];
  const provider = (id: string, timeout: number) => ({
    id,
    type: "openai-compatible" as const,
    baseUrl: llm.baseUrl,
    apiKey: "test-key",
    timeoutMs: timeout,
    maxRetries: 1,
    headers: {},
  });
  const client = new LlmClient({
    providers: [provider("main", timeoutMs), provider("backup", 5_000)],
    models: { replyer: ["main/slow", "backup/fast"] },
    usage: (record) => usage.push(record),
    logger: createLogger({ level: "silent" }),
    sleep: async () => {},
  });
  return { client, usage };
}

/** Records what arrives; `used` makes it refuse a restart once it has taken any text. */
function recordingSink(used: boolean): LlmTextSink & { pieces: string[]; restarts: number } {
  const sink = {
    pieces: [] as string[],
    restarts: 0,
    restart() {
      if (used && sink.pieces.length > 0) return false;
      sink.restarts++;
      sink.pieces = [];
      return true;
    },
    text(delta: string) {
      sink.pieces.push(delta);
    },
  };
  return sink;
}

const REQUEST = { task: "replyer", messages: [{ role: "user" as const, content: "早上好" }] };

describe("LlmClient streaming", () => {
  it("hands the text over as it arrives and reports usage and time to first token", async () => {
    const { client, usage } = streamingClient();
    llm.enqueue({
      text: "早上好呀，今天也要加油",
      stream: { tokensPerSecond: 100 },
      usage: { promptTokens: 30, completionTokens: 11 },
    });
    const sink = recordingSink(false);
    let piecesWhenTheFirstArrived = -1;
    const firstPiece = new Promise<void>((resolve) => {
      const text = sink.text;
      sink.text = (delta) => {
        text(delta);
        if (piecesWhenTheFirstArrived < 0) piecesWhenTheFirstArrived = llm.requests.length;
        resolve();
      };
    });

    const call = client.generate({ ...REQUEST, stream: sink });
    await firstPiece;
    const result = await call;

    expect(llm.requests[0]?.body.stream).toBe(true);
    expect(sink.pieces.length).toBeGreaterThan(5);
    expect(sink.pieces.join("")).toBe("早上好呀，今天也要加油");
    expect(result).toMatchObject({ text: "早上好呀，今天也要加油", finishReason: "stop" });
    expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 11 });
    // 11 characters at 100 a second: the first one arrives well before the last.
    expect(result.firstTokenMs).toBeLessThan(result.latencyMs - 50);
    expect(usage).toEqual([
      expect.objectContaining({ success: true, promptTokens: 30, completionTokens: 11 }),
    ]);
  });

  it("times a stalled stream out as a whole and starts over on the next model while nothing was used", async () => {
    const { client, usage } = streamingClient(400);
    llm.enqueue(
      { text: "说到一半就卡住了", stream: { tokensPerSecond: 200, stallAfterTokens: 3 } },
      { text: "说到一半就卡住了", stream: { tokensPerSecond: 200, stallAfterTokens: 3 } },
      { text: "换个模型说完整", stream: { tokensPerSecond: 200 } },
    );
    const sink = recordingSink(false);

    const result = await client.generate({ ...REQUEST, stream: sink });

    expect(result).toMatchObject({ text: "换个模型说完整", provider: "backup" });
    expect(sink.pieces.join("")).toBe("换个模型说完整");
    expect(sink.restarts).toBe(3);
    expect(usage.map((record) => record.error ?? "ok")).toEqual([
      "timed out after 400 ms",
      "timed out after 400 ms",
      "ok",
    ]);
  });

  it("does not try again once the sink has used part of a broken answer", async () => {
    const { client } = streamingClient(400);
    llm.enqueue({ text: "说到一半就卡住了", stream: { tokensPerSecond: 200, stallAfterTokens: 3 } });
    const sink = recordingSink(true);

    const failure = await client.generate({ ...REQUEST, stream: sink }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(LlmError);
    expect((failure as LlmError).kind).toBe("broken_off");
    expect(sink.pieces.join("")).toBe("说到一");
    expect(llm.requests).toHaveLength(1);
  });
});
