/**
 * Inputs for the golden test of the shipped `zh` templates: every optional part of each
 * prompt absent, then present. `fixtures/zh-before-templates.json` holds what the prompts
 * built from these inputs were, byte for byte, before they became template files; its planner
 * and replyer entries were written again when their layout changed for prompt caches (issue
 * 15: every chat line labelled, this turn's messages at the end of the chat, enrichments and
 * the time after it).
 */
import { zonedClock } from "../../src/context/clock-text.ts";

const clock = zonedClock("Asia/Shanghai");
const now = Date.UTC(2025, 4, 1, 2, 3, 4);
const group = { platform: "onebot", isGroup: true, peerId: "20001" };
const privateChat = { platform: "console", isGroup: false, peerId: "10001" };
const plainIdentity = { name: "紬", aliases: [], persona: "你是群里的一名普通成员，说话简短自然。" };
const fullIdentity = { name: "紬", aliases: ["tsumugi", "小紬"], persona: "你是一只猫。\n说话带喵。" };
const history = ["[09:00:00] 张三(10001): 早", "[09:00:05] 紬(你): 早上好"];
const labelledHistory = ["[msg_id=h1] [09:00:00] 张三(10001): 早", "[msg_id=h2] [09:00:05] 紬(你): 早上好"];
const newLines = ["[msg_id=m1] [10:00:00] 李四(10002): 在吗"];

export const turnCases = {
  minimal: { identity: plainIdentity, chat: group, historyLines: [], newLines, now, clock },
  full: {
    identity: fullIdentity,
    chat: privateChat,
    historyLines: labelledHistory,
    newLines: [...newLines, "[msg_id=m2] [10:00:01] 李四(10002): 问你个事"],
    omittedCount: 3,
    quoteBlock:
      "[引用 张三(10001) 于 09:59:59 的消息：今天天气怎么样\n]\n[msg_id=m2] [10:00:01] 李四(10002): 问你个事",
    systemParts: ["频道规则一", "频道规则二"],
    enrichments: ["## 天气（插件 weather 提供的补充信息）\n晴"],
    now,
    clock,
  },
};

export const replyExtras = {
  minimal: { targetLine: newLines[0]!, extraPrompts: [] },
  full: { targetLine: newLines[0]!, intent: "打个招呼", extraPrompts: ["用语音回复", "不超过十个字"] },
};

export const transcriptCases = {
  empty: { identity: plainIdentity, chat: group, transcriptLines: [], now, clock },
  full: { identity: fullIdentity, chat: privateChat, transcriptLines: history, now, clock },
};
