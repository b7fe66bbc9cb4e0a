import type { ZonedClock } from "../context/clock-text.ts";
import type { LlmMessage } from "../llm/types.ts";

export interface PromptIdentity {
  name: string;
  aliases: string[];
  persona: string;
}

export interface PromptChat {
  /** `onebot` (QQ), `console`, `stdio`, …: named in the prompt only for QQ. */
  platform: string;
  isGroup: boolean;
  /** Group or private peer id. */
  peerId: string;
}

export interface TurnPromptInput {
  identity: PromptIdentity;
  chat: PromptChat;
  /** Earlier messages, oldest first, already formatted and bounded. */
  historyLines: string[];
  /** This turn's new messages, formatted with their msg_id labels. */
  newLines: string[];
  /** New messages left out because too many arrived at once (they stay stored); said before the rest. */
  omittedCount?: number;
  /** What the newest quoting message quotes and forwards (seed 003's block), shown before the new messages. */
  quoteBlock?: string;
  /** The channel's system prompt parts (stdio `channel_prompt`), ordered by key; stable, so after the rules. */
  systemParts?: string[];
  /**
   * Planner only: enricher sections (each under a heading naming enricher and plugin). They
   * change per turn, so they go after the rules and leave the cached prefix intact.
   */
  enrichments?: string[];
  now: number;
  /** Times in the prompt are written in `chat.timezone`. */
  clock: ZonedClock;
}

export function identityText(identity: PromptIdentity): string {
  const aliases = identity.aliases.length > 0 ? `（也有人叫你 ${identity.aliases.join("、")}）` : "";
  return `你的名字是${identity.name}${aliases}。\n${identity.persona}`;
}

/**
 * Parts that rarely change come first (identity, rules), then history oldest to newest, then
 * the new batch, and volatile details last, so consecutive turns share a long cached prefix.
 */
/** Where the chat happens, as the prompt names it: `QQ 群 123`, `私聊`, … */
export function placeText(chat: PromptChat): string {
  const place = chat.isGroup ? `群 ${chat.peerId}` : "私聊";
  return chat.platform === "onebot" && chat.isGroup ? `QQ ${place}` : place;
}

/** The closing line with the current local date and time (volatile, so it goes last). */
export function nowText(now: number, clock: ZonedClock): string {
  return `当前时间 ${clock.date(now)} ${clock.time(now)}。`;
}

function conversationText(input: TurnPromptInput, ending: string): string {
  const place = placeText(input.chat);
  const history = input.historyLines.length > 0 ? input.historyLines.join("\n") : "（没有更早的消息）";
  return [
    `## 聊天记录（${place}）`,
    history,
    "",
    "## 新消息",
    ...(input.quoteBlock === undefined ? [] : [input.quoteBlock]),
    ...(input.omittedCount ? [`（另有 ${input.omittedCount} 条较早的消息因过多未列出）`] : []),
    input.newLines.join("\n"),
    "",
    nowText(input.now, input.clock),
    ending,
  ].join("\n");
}

const PLANNER_RULES = [
  "你在聊天中决定要不要说话、怎么行动，像群里的普通成员一样。",
  "- 要说话就调用 reply（可用 msg_id 指定回哪条、set_quote 引用它、intent 写下要点），调用后本轮结束。",
  "- 不该说话就调用 no_reply 并写明原因；别人话没说完可以调用 wait。",
  "- 其他工具按需调用，拿到结果后再决定。每轮只回复一次。",
].join("\n");

export function plannerMessages(input: TurnPromptInput): LlmMessage[] {
  return [
    {
      role: "system",
      content: [
        identityText(input.identity),
        PLANNER_RULES,
        ...(input.systemParts ?? []),
        ...(input.enrichments ?? []),
      ].join("\n\n"),
    },
    { role: "user", content: conversationText(input, "请决定你的行动。") },
  ];
}

export interface ReplyPromptInput extends TurnPromptInput {
  /** The message being answered, formatted. */
  targetLine: string;
  /** What the planner wants to say, when it said. */
  intent?: string;
  /** Extra requirements from reply extensions (seed 000/001 `extra_prompt`), verbatim. */
  extraPrompts: string[];
}

const REPLYER_RULES = [
  "现在由你写出要发到聊天里的消息。",
  "- 只输出消息本身：不要加引号、名字前缀、时间或解释。",
  "- 口语、简短、自然，符合你的人设。",
].join("\n");

export function replyerMessages(input: ReplyPromptInput): LlmMessage[] {
  const extras = input.extraPrompts.length > 0 ? `\n\n${input.extraPrompts.join("\n")}` : "";
  const intent = input.intent ? `\n你想表达的要点：${input.intent}` : "";
  return [
    {
      role: "system",
      content: [identityText(input.identity), REPLYER_RULES, ...(input.systemParts ?? [])].join("\n\n"),
    },
    {
      role: "user",
      content: conversationText(input, `你要回复的是：${input.targetLine}${intent}${extras}\n请写出回复。`),
    },
  ];
}
