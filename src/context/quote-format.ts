import type { ClockText } from "./clock-text.ts";
import { CONTINUATION_INDENT, messageText } from "./message-line.ts";
import type { ResolvedQuote } from "./quote-types.ts";

/**
 * The quote block, exactly in this form:
 *
 *   [引用 张三(10001) 于 09:59:59 的消息：今天天气怎么样
 *     - 李四(10002) 10:00:05：北京今天晴，最高温度 28 度
 *       - 王五(10003) 10:00:10：记得防晒
 *   ]
 *
 * The head falls back to `[引用消息：<text>` when no sender is known; a node's sender falls
 * back to the bare id, then to `未知`; parts without a time leave the time out; the closing
 * line is `（已截断）]` when anything was left out. Quoted text is written as a transcript's
 * (message-line.ts): its further lines indented under its own, never at column 0.
 */
export function formatQuoteContext(quote: ResolvedQuote, clock: ClockText): string {
  const hasSender = quote.senderName !== undefined || quote.senderId !== undefined;
  const text = messageText(quote.text);
  const head = hasSender
    ? `[引用 ${who(quote.senderName, quote.senderId)}${quote.time === undefined ? "" : ` 于 ${clock(quote.time)}`} 的消息：${text}`
    : `[引用消息：${text}`;
  const lines = [head];
  for (const node of quote.nodes) {
    const time = node.time === undefined ? "" : ` ${clock(node.time)}`;
    const indent = CONTINUATION_INDENT.repeat(node.depth + 1);
    const nodeText = messageText(node.text, `${indent}${CONTINUATION_INDENT}`);
    lines.push(`${indent}- ${who(node.senderName, node.senderId)}${time}：${nodeText}`);
  }
  lines.push(quote.truncated ? "（已截断）]" : "]");
  return lines.join("\n");
}

/** `name(id)`, or whichever half is known, or `未知`. */
function who(name: string | undefined, id: string | undefined): string {
  // A line break in a nickname would read as a line of the block of its own.
  const flat = name?.replace(/\s*[\r\n]+\s*/g, " ").trim();
  if (flat) return id === undefined ? flat : `${flat}(${id})`;
  return id ?? "未知";
}
