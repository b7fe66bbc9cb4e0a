import { describe, expect, it } from "vitest";
import { QuoteContext, type QuoteContextSettings } from "../../src/context/quote-context.ts";
import { findQuoteMessage, quoteSourceOf } from "../../src/context/quote-source.ts";
import type { QuoteFetcher } from "../../src/context/quote-types.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import type { Segment } from "../../src/message/segment.ts";
import { type MonitorEvent, MonitorHub } from "../../src/monitor/monitor.ts";
import { groupChatMessage } from "../support/messages.ts";

const SETTINGS: QuoteContextSettings = {
  quote: { enabled: true, resolveForward: true, maxDepth: 2, maxNodes: 20, maxChars: 4000, timeoutMs: 1000 },
  timeZone: "Asia/Shanghai",
};

function message(segments: Segment[]): ChatMessage {
  return groupChatMessage({ senderName: "Alice", segments });
}

const multimsgCard = (resid: string) =>
  JSON.stringify({
    app: "com.tencent.multimsg",
    meta: { detail: { resid, news: [{ text: "张三: 你好" }] } },
  });

function logCapture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

describe("which message is resolved", () => {
  it("takes the last message of the batch that replies or forwards", () => {
    const first = message([
      { type: "reply", data: { id: "1" } },
      { type: "text", data: { text: "a" } },
    ]);
    const second = message([{ type: "forward", data: { id: "F" } }]);
    const plain = message([{ type: "text", data: { text: "b" } }]);
    expect(findQuoteMessage([first, second, plain])).toBe(second);
    expect(findQuoteMessage([first, plain])).toBe(first);
    expect(findQuoteMessage([plain])).toBeUndefined();
  });

  it("reads a merged forward shared as a com.tencent.multimsg json card", () => {
    const card = message([{ type: "json", data: { data: multimsgCard("RESID-123") } }]);
    expect(quoteSourceOf(card)).toEqual({ forwardIds: ["RESID-123"] });
    const other = message([{ type: "json", data: { data: JSON.stringify({ app: "com.tencent.music" }) } }]);
    expect(quoteSourceOf(other)).toBeUndefined();
  });
});

describe("QuoteContext", () => {
  it("resolves a json forward card and reports what it did to the monitor", async () => {
    const fetcher: QuoteFetcher = {
      getMessage: async () => {
        throw new Error("not expected");
      },
      getForward: async (id) =>
        id === "RESID-123"
          ? { messages: [{ sender: { user_id: 1, nickname: "张三" }, content: "你好" }] }
          : null,
    };
    const monitor = new MonitorHub();
    const events: MonitorEvent[] = [];
    monitor.subscribe((event) => events.push(event));
    const { logger } = logCapture();
    const quotes = new QuoteContext({ fetcherFor: () => fetcher, settings: () => SETTINGS, monitor, logger });
    const card = message([{ type: "json", data: { data: multimsgCard("RESID-123") } }]);
    expect(await quotes.blockFor(card, "reply-1")).toBe("[引用消息：\n  - 张三(1)：你好\n]");
    expect(events).toEqual([
      expect.objectContaining({
        type: "quote.resolved",
        replyId: "reply-1",
        data: expect.objectContaining({ messageId: card.messageId, nodes: 1, truncated: false }),
      }),
    ]);
  });

  it("logs an unexpected failure and gives no block instead of failing the turn", async () => {
    const { logger, lines } = logCapture();
    const quotes = new QuoteContext({
      fetcherFor: () => ({ getMessage: async () => ({}), getForward: async () => ({}) }),
      settings: () => {
        throw new TypeError("settings exploded");
      },
      monitor: new MonitorHub(),
      logger,
    });
    const reply = message([{ type: "reply", data: { id: "9" } }]);
    await expect(quotes.blockFor(reply, "reply-2")).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const line = lines.find((l) => String(l.msg).startsWith("quote resolution failed"));
    expect(line).toMatchObject({ level: 50, replyId: "reply-2", messageId: reply.messageId });
    expect(JSON.stringify(line)).toContain("settings exploded");
  });

  it("gives no block when the account is not connected", async () => {
    const { logger } = logCapture();
    const quotes = new QuoteContext({
      fetcherFor: () => undefined,
      settings: () => SETTINGS,
      monitor: new MonitorHub(),
      logger,
    });
    expect(await quotes.blockFor(message([{ type: "reply", data: { id: "9" } }]), "r")).toBeUndefined();
  });
});
