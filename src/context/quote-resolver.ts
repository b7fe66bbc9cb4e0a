import { wasRefused } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import { type ForwardRef, forwardRefs } from "../message/forward-refs.ts";
import type { PictureDescriptions } from "../message/picture-text.ts";
import { type RenderOptions, renderSegments } from "../message/render.ts";
import type { Segment } from "../message/segment.ts";
import { applyCharBudget } from "./char-budget.ts";
import type { QuoteSettings } from "./config.ts";
import { forwardEntries } from "./forward-answer.ts";
import { RECALLED_TEXT } from "./message-line.ts";
import { FETCH_FAILED_TEXT, type ForwardNode, type QuoteFetcher, type ResolvedQuote } from "./quote-types.ts";
import { parseQuotedMessage } from "./quoted-message.ts";

/** What one message points at: the message it replies to and the forwards it carries. */
export interface QuoteSource {
  replyId?: string;
  forwardIds: string[];
  /** The messages of forwards that came inline (NapCat), by forward id: read without a call. */
  inline?: ReadonlyMap<string, unknown[]>;
}

export interface ResolveDeps {
  fetcher: QuoteFetcher;
  settings: QuoteSettings;
  logger: Logger;
  /** The turn's picture descriptions: the quote's and the forwards' pictures are described too. */
  pictures?: PictureDescriptions;
  /** How mentions read: names of members, the bot's own account. */
  render?: Pick<RenderOptions, "nameOf" | "selfId">;
  /** Whether the quoted message was recalled: its content is then never fetched nor shown. */
  recalled?: (messageId: string) => Promise<boolean>;
}

/** Text still to render: a quote or a forward node and the segments its text is made of. */
interface PendingText {
  target: { text: string };
  segments: Segment[];
}

/** Budget and cycle guard shared by the whole forward tree of one resolution. */
interface WalkState {
  visited: Set<string>;
  remaining: number;
  truncated: boolean;
  /** Rendered once every picture of the quote is described. */
  pending: PendingText[];
}

/**
 * Fetches the quoted message (`get_msg`) and expands merged forwards (`get_forward_msg`), as
 * quote resolution asks. A failed call degrades its part to `[引用消息获取失败]`; nothing here
 * throws because of what the platform answered. Undefined when there is nothing to resolve.
 */
export async function resolveQuote(
  source: QuoteSource,
  deps: ResolveDeps,
): Promise<ResolvedQuote | undefined> {
  const { settings } = deps;
  if (!settings.enabled) return undefined;
  // With resolveForward off the message's forward ids are ignored entirely: a forward-only
  // message gets no block, its forwards stay the `[合并转发]` placeholder in the text.
  const forwardIds = settings.resolveForward ? source.forwardIds : [];
  if (source.replyId === undefined && forwardIds.length === 0) return undefined;

  const quote: ResolvedQuote = { text: "", nodes: [], truncated: false };
  const state: WalkState = {
    visited: new Set(),
    remaining: settings.maxNodes,
    truncated: false,
    pending: [],
  };
  let quotedForwards: ForwardRef[] = [];
  if (source.replyId !== undefined && (await deps.recalled?.(source.replyId))) {
    quote.text = RECALLED_TEXT;
  } else if (source.replyId !== undefined) {
    try {
      const parsed = parseQuotedMessage(await deps.fetcher.getMessage(source.replyId, settings.timeoutMs));
      quote.senderId = parsed.senderId;
      quote.senderName = parsed.senderName;
      quote.time = parsed.time;
      state.pending.push({ target: quote, segments: parsed.segments });
      // Replying to a forwarded chat log shows the log itself, not just "a forward".
      quotedForwards = forwardRefs(parsed.segments);
    } catch (error) {
      // The implementation answering that it has no such message (expired, recalled) is expected.
      if (wasRefused(error)) {
        const problem = error instanceof Error ? error.message : String(error);
        deps.logger.debug({ messageId: source.replyId, problem }, "quoted message not found (get_msg)");
      } else
        deps.logger.warn({ messageId: source.replyId, err: error }, "get_msg for a quoted message failed");
      quote.text = FETCH_FAILED_TEXT;
    }
  }

  if (settings.resolveForward) {
    const ownForwards = forwardIds.map((id) => ({ id, inline: source.inline?.get(id) }));
    for (const forward of [...ownForwards, ...quotedForwards]) {
      quote.nodes.push(...(await expandForward(forward, 0, state, deps)));
    }
  }
  await deps.pictures?.describe(state.pending.map((pending) => pending.segments));
  for (const { target, segments } of state.pending) {
    target.text = renderSegments(segments, { ...deps.render, pictures: deps.pictures?.texts });
  }

  const budgeted = applyCharBudget(quote.text, quote.nodes, settings.maxChars);
  return { ...quote, ...budgeted, truncated: state.truncated || budgeted.truncated };
}

/**
 * The nodes of one forward and, depth first, of the forwards nested in them. Messages that
 * came inline are read as they are: NapCat refuses `get_forward_msg` for inner levels and
 * once its cache has dropped the outer id.
 */
async function expandForward(
  forward: ForwardRef,
  depth: number,
  state: WalkState,
  deps: ResolveDeps,
): Promise<ForwardNode[]> {
  const forwardId = forward.id;
  // A forward seen before (a cycle, or the same log twice) adds nothing and costs nothing.
  if (forwardId !== "" && state.visited.has(forwardId)) return [];
  if (state.remaining <= 0) {
    state.truncated = true;
    return [];
  }
  state.visited.add(forwardId);

  const entries = forward.inline?.length ? forward.inline : await fetchEntries(forwardId, deps);
  if (entries === undefined) {
    state.remaining -= 1;
    return [{ text: FETCH_FAILED_TEXT, depth }];
  }

  const nodes: ForwardNode[] = [];
  for (const entry of entries) {
    if (state.remaining <= 0) {
      state.truncated = true;
      break;
    }
    const parsed = parseQuotedMessage(entry);
    state.remaining -= 1;
    const node: ForwardNode = {
      senderId: parsed.senderId,
      senderName: parsed.senderName,
      time: parsed.time,
      text: "",
      depth,
    };
    nodes.push(node);
    state.pending.push({ target: node, segments: parsed.segments });
    if (depth < deps.settings.maxDepth) {
      for (const nested of forwardRefs(parsed.segments)) {
        nodes.push(...(await expandForward(nested, depth + 1, state, deps)));
      }
    }
  }
  return nodes;
}

/** A forward's messages from `get_forward_msg`; undefined when the call failed. */
async function fetchEntries(forwardId: string, deps: ResolveDeps): Promise<unknown[] | undefined> {
  try {
    const answer = await deps.fetcher.getForward(forwardId, deps.settings.timeoutMs);
    const found = forwardEntries(answer);
    if (!found) deps.logger.warn({ forwardId }, "get_forward_msg answered without a message list");
    return found ?? [];
  } catch (error) {
    deps.logger.warn({ forwardId, err: error }, "get_forward_msg failed");
    return undefined;
  }
}
