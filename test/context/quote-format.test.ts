import { describe, expect, it } from "vitest";
import { clockText } from "../../src/context/clock-text.ts";
import { formatQuoteContext } from "../../src/context/quote-format.ts";
import type { ResolvedQuote } from "../../src/context/quote-types.ts";

const shanghai = clockText("Asia/Shanghai");
/** 2024-06-01 at this wall-clock time in Shanghai (UTC+8), as Unix milliseconds. */
const at = (hh: number, mm: number, ss: number) => Date.UTC(2024, 5, 1, hh - 8, mm, ss);

const REFERENCE_EXAMPLE = [
  "[引用 张三(10001) 于 09:59:59 的消息：今天天气怎么样",
  "  - 李四(10002) 10:00:05：北京今天晴，最高温度 28 度",
  "    - 王五(10003) 10:00:10：记得防晒",
  "]",
  "问一下上海的天气呢",
].join("\n");

const referenceQuote: ResolvedQuote = {
  senderId: "10001",
  senderName: "张三",
  time: at(9, 59, 59),
  text: "今天天气怎么样",
  nodes: [
    {
      senderId: "10002",
      senderName: "李四",
      time: at(10, 0, 5),
      text: "北京今天晴，最高温度 28 度",
      depth: 0,
    },
    { senderId: "10003", senderName: "王五", time: at(10, 0, 10), text: "记得防晒", depth: 1 },
  ],
  truncated: false,
};

describe("formatQuoteContext", () => {
  it("renders the reference example byte for byte, as the prefix of the batch text", () => {
    expect(`${formatQuoteContext(referenceQuote, shanghai)}\n问一下上海的天气呢`).toBe(REFERENCE_EXAMPLE);
  });

  it("closes with （已截断）] when anything was left out", () => {
    expect(formatQuoteContext({ ...referenceQuote, truncated: true }, shanghai)).toBe(
      [
        "[引用 张三(10001) 于 09:59:59 的消息：今天天气怎么样",
        "  - 李四(10002) 10:00:05：北京今天晴，最高温度 28 度",
        "    - 王五(10003) 10:00:10：记得防晒",
        "（已截断）]",
      ].join("\n"),
    );
  });

  it("uses the short head when no sender is known (a failed get_msg, or forwards only)", () => {
    expect(formatQuoteContext({ text: "[引用消息获取失败]", nodes: [], truncated: false }, shanghai)).toBe(
      "[引用消息：[引用消息获取失败]\n]",
    );
    expect(
      formatQuoteContext(
        {
          text: "",
          nodes: [{ senderId: "10002", senderName: "李四", text: "转发的话", depth: 0 }],
          truncated: false,
        },
        shanghai,
      ),
    ).toBe("[引用消息：\n  - 李四(10002)：转发的话\n]");
  });

  it("falls back from name(id) to the bare id, then to 未知, and leaves unknown times out", () => {
    const quote: ResolvedQuote = {
      senderId: "10001",
      text: "原话",
      nodes: [
        { senderId: "10002", time: at(10, 0, 5), text: "只有号码", depth: 0 },
        { senderName: "只有名字", text: "没有号码", depth: 1 },
        { text: "[引用消息获取失败]", depth: 2 },
      ],
      truncated: false,
    };
    expect(formatQuoteContext(quote, shanghai)).toBe(
      [
        "[引用 10001 的消息：原话",
        "  - 10002 10:00:05：只有号码",
        "    - 只有名字：没有号码",
        "      - 未知：[引用消息获取失败]",
        "]",
      ].join("\n"),
    );
  });

  it("keeps a nickname with a line break on its own line", () => {
    const quote: ResolvedQuote = {
      senderId: "1",
      senderName: "坏\n名字",
      text: "hi",
      nodes: [],
      truncated: false,
    };
    expect(formatQuoteContext(quote, shanghai)).toBe("[引用 坏 名字(1) 的消息：hi\n]");
  });

  it("renders times in the configured zone", () => {
    const utc = clockText("UTC");
    expect(utc(at(9, 59, 59))).toBe("01:59:59");
    expect(shanghai(Date.UTC(2024, 0, 1, 16, 0, 0))).toBe("00:00:00");
  });
});
