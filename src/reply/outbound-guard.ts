/**
 * The outbound guard: text a model wrote for the group loses what is internal to the bot before
 * it is sent — reasoning (`<think>` blocks), tool-call markup written as text, the transcript's
 * header labels copied at the start of a line — and a reply that is then empty or only a
 * "say nothing" sentinel (`NO_REPLY`, `SKIP`, `[NO_REPLY]`, `<no_reply>`) is not sent at all.
 * Every pattern is anchored or scanned with `indexOf`, so the work stays linear in the text.
 */

/** Blocks whose whole content is internal: reasoning and tool calls written as text. */
const BLOCK_TAGS = ["think", "thinking", "reasoning", "tool_call", "function_call"];

/** Special tokens of chat templates written as text (`<|tool_call|>`, `<|im_end|>`). */
const SPECIAL_TOKEN = /<\|[a-z_]{1,32}\|>/gi;

/**
 * Transcript header labels at the start of a line: `[msg_id=…]`, `[10:00:05]`, and the
 * `name(你): ` or `name(10001): ` that follows a time label.
 */
const LINE_LABELS =
  /^[ \t]*(?:\[[ \t]*msg_id[ \t]*=[^\]\n]{0,64}\][ \t]*|\[[ \t]*\d{1,2}[ \t]*:[ \t]*\d{2}(?:[ \t]*:[ \t]*\d{2})?[ \t]*\][ \t]*(?:[^\s():（）]{1,32}[(（](?:你|\d{1,20})[)）][ \t]*[:：][ \t]*)?)+/gim;

/** A whole reply that only says "say nothing". */
const SENTINEL =
  /^[[<(（【]?[ \t]*\/?[ \t]*(?:no[_ -]?reply|no[_ -]?response|skip|silent|silence|沉默|不回复)[ \t]*\/?[ \t]*[\]>)）】]?[ \t]*[.。!！]?$/i;

/** The reply as the group may see it, or why it is not sent at all. */
export type GuardedReply = { text: string } | { dropped: string };

/** Why a reply with nothing left but internal text is dropped (the turn's silent reason). */
export const ONLY_MARKER = "the model's reply was only an internal marker";

/** Guards a complete reply text. */
export function guardReply(text: string): GuardedReply {
  const cleaned = stripInternal(text, true).trim();
  if (cleaned === "" || SENTINEL.test(cleaned) || isToolCallObject(cleaned)) return { dropped: ONLY_MARKER };
  return { text: cleaned };
}

/**
 * Removes internal text. A block is removed when it is complete (`<think>…</think>`), or,
 * at the very start of the reply, when only its opening tag came (an unclosed `<think>`: all of
 * it is reasoning) or only its closing one (the template opened it). A lone tag elsewhere is
 * kept: a member may ask about `<think>` itself. `complete` false (a streamed answer still
 * arriving) keeps an unclosed block for the caller to hold back.
 */
export function stripInternal(text: string, complete: boolean): string {
  let rest = text;
  for (const tag of BLOCK_TAGS) rest = stripBlocks(rest, tag, complete);
  return rest.replace(SPECIAL_TOKEN, "").replace(LINE_LABELS, "");
}

/** Where a block that is still open begins (the streamed text after it may be internal), or -1. */
export function openBlockStart(text: string): number {
  let earliest = -1;
  for (const tag of BLOCK_TAGS) {
    const open = text.lastIndexOf(`<${tag}>`);
    if (open >= 0 && text.indexOf(`</${tag}>`, open) < 0 && (earliest < 0 || open < earliest))
      earliest = open;
  }
  return earliest;
}

function stripBlocks(text: string, tag: string, complete: boolean): string {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  let rest = text;
  const firstClose = rest.indexOf(close);
  const firstOpen = rest.indexOf(open);
  // A closing tag with no opening before it: the template opened the block, all before it is reasoning.
  if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen))
    rest = rest.slice(firstClose + close.length);
  let result = "";
  let from = 0;
  for (;;) {
    const start = rest.indexOf(open, from);
    if (start < 0) break;
    const end = rest.indexOf(close, start + open.length);
    if (end < 0) {
      // Unclosed at the very start: the whole reply is reasoning.
      if (complete && rest.slice(0, start).trim() === "" && result.trim() === "") return "";
      break;
    }
    result += rest.slice(from, start);
    from = end + close.length;
  }
  return result + rest.slice(from);
}

/** A tool call written as the whole text: `{"name": "reply", "arguments": …}`. */
function isToolCallObject(text: string): boolean {
  if (!text.startsWith("{") || !text.endsWith("}")) return false;
  try {
    const value: unknown = JSON.parse(text);
    return (
      typeof value === "object" &&
      value !== null &&
      ("name" in value || "function" in value) &&
      ("arguments" in value || "parameters" in value)
    );
  } catch {
    return false;
  }
}
