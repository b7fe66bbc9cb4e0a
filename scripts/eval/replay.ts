/**
 * Replays a stored chat through a candidate's eval bot: each member message (a quote, a
 * picture, a poke as the store has it) becomes the OneBot frame QQ would have sent, in stored
 * order at the stored pace compressed by the speed; what the candidate sends is captured by the
 * stand-in (it goes nowhere else) and explained by the bot's monitor events (trigger,
 * participation score, governor rule) and priced at its config's `llm.prices`.
 *
 * Recalled messages are not fed: a member withdrew them, so their content is not sent to a
 * model provider again (the live bot may have read them before the recall; the report counts them).
 */
import { withCost } from "../../src/llm/prices.ts";
import type { LlmTokenUsage } from "../../src/llm/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { Segment } from "../../src/message/segment.ts";
import { formatSessionId } from "../../src/message/session-id.ts";
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { jsonId, type SentMessage, type WireSegment } from "../../test/support/onebot-standin.ts";
import { sleep } from "../../test/support/wait.ts";
import type { EvalBot } from "./eval-bot.ts";
import { renderedText, workPending } from "./play.ts";
import type { StoredChat, StoredChatMessage } from "./replay-source.ts";

/** `fast`: gaps up to FAST_KEPT_GAP_MS as they were, longer ones only until the bot is done; a number: every gap divided by it. */
export type ReplaySpeed = "fast" | number;

/** Gaps people leave while talking, kept as they were in fast replays (the batching depends on them). */
const FAST_KEPT_GAP_MS = 3_000;
/** The longest a replay waits for the bot to finish its work before the next message. */
const SETTLE_LIMIT_MS = 60_000;
/** Quiet beyond the batching window after which a chat with no turn running is settled. */
const SETTLE_QUIET_MS = 500;

export interface CandidateMessage {
  /** On the stored chat's clock (Unix ms): the message it followed, plus the time the bot took. */
  time: number;
  text: string;
  /** Sent in a turn nobody addressed to the bot. */
  unasked: boolean;
  /** The stored message id of the member message it came after (undefined: before any). */
  after?: string;
  why: MessageWhy;
}

export interface MessageWhy {
  /** Why the turn started: the trigger of its messages (mention, reply_to_self, keyword, private, poke), or "unasked". */
  trigger: string;
  /** For an unasked join: the participation score and the threshold it passed. */
  score?: number;
  threshold?: number;
  replyId?: string;
}

export interface GovernorHold {
  time: number;
  rule: string;
  after?: string;
  score?: number;
  threshold?: number;
}

export interface CandidateRun {
  messages: CandidateMessage[];
  /** Decisions not to join or to hold back a written answer, except a score below the threshold. */
  holds: GovernorHold[];
  /** Score decisions for messages (joined or not), by stored message id: why the candidate stayed out. */
  decisions: Map<string, { joined: boolean; rule?: string; score?: number; threshold?: number }>;
  turns: number;
  modelCalls: number;
  tokens: number;
  /** In the prices' currency; undefined when no call had a price. */
  cost: number | undefined;
  failedTurns: string[];
  fed: number;
}

/** Writes the store's cached descriptions of the replayed pictures into the candidate's new database. */
export function seedPictures(chat: StoredChat): (databaseFile: string) => void {
  return (databaseFile) => {
    if (chat.pictures.length === 0) return;
    const db = openSqliteDatabase(databaseFile, createLogger({ level: "silent" }));
    try {
      const description = db.prepare(
        `INSERT INTO picture_descriptions (sha256, kind, description, model, created_at)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
      );
      const fileId = db.prepare(
        "INSERT INTO picture_file_ids (file_id, sha256) VALUES (?, ?) ON CONFLICT (file_id) DO NOTHING",
      );
      db.transaction(() => {
        for (const picture of chat.pictures) {
          description.run(picture.sha256, picture.kind, picture.description, picture.model, Date.now());
          fileId.run(picture.fileId, picture.sha256);
        }
      })();
    } finally {
      db.close();
    }
  };
}

export async function replayChat(bot: EvalBot, chat: StoredChat, speed: ReplaySpeed): Promise<CandidateRun> {
  const selfId = chat.selfId;
  const sessionId = formatSessionId({
    platform: "onebot",
    selfId,
    chatType: chat.chatType,
    peerId: chat.peerId,
  });
  const feed = chat.messages.filter((message) => !message.fromSelf && message.recalledAt === undefined);
  const fedIds = new Set(feed.map((message) => message.messageId));
  const liveIds = new Set(
    chat.messages.filter((message) => message.fromSelf).map((message) => message.messageId),
  );
  const factor = speed === "fast" ? 1 : speed;

  /** The last member message fed, and when (wall clock). */
  let last: { message: StoredChatMessage; fedAt: number } | undefined;
  const sent: Array<{ wireId: string; text: string; time: number; after?: string }> = [];
  let lastActivity = Date.now();
  const stopListening = bot.qq.onSent((message: SentMessage) => {
    const inChat =
      chat.chatType === "group" ? message.groupId === chat.peerId : message.userId === chat.peerId;
    if (!inChat) return;
    lastActivity = Date.now();
    sent.push({
      wireId: String(message.messageId),
      text: renderedText(message.message),
      time: last ? last.message.time + (lastActivity - last.fedAt) * factor : (chat.messages[0]?.time ?? 0),
      ...(last && { after: last.message.messageId }),
    });
  });
  const events = () =>
    bot.monitor.events
      .filter((entry) => entry.event === "monitor")
      .map((entry) => entry.data as MonitorEvent)
      .filter((event) => event.sessionId === sessionId);
  let eventsSeen = 0;
  const isSettled = () => {
    const seen = events();
    if (seen.length > eventsSeen) {
      eventsSeen = seen.length;
      lastActivity = Date.now();
    }
    return !workPending(seen) && Date.now() - lastActivity >= bot.batchWindowMs + SETTLE_QUIET_MS;
  };
  const settle = async () => {
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    while (!isSettled() && Date.now() < deadline) await sleep(20);
  };

  try {
    for (const message of feed) {
      if (last) {
        const gap = Math.max(0, message.time - last.message.time);
        if (speed !== "fast") await sleep(gap / speed);
        else if (gap <= FAST_KEPT_GAP_MS) await sleep(gap);
        else await settle();
      }
      lastActivity = Date.now();
      push(bot, chat, message, { selfId, fedIds, liveIds, lastSent: sent.at(-1)?.wireId });
      last = { message, fedAt: Date.now() };
    }
    await settle();
  } finally {
    stopListening();
  }
  return explain(sent, events(), bot, feed.length);
}

/** One stored member message as the frame QQ would send for it. */
function push(
  bot: EvalBot,
  chat: StoredChat,
  message: StoredChatMessage,
  context: { selfId: string; fedIds: Set<string>; liveIds: Set<string>; lastSent: string | undefined },
): void {
  if (message.notice?.type === "poke") {
    bot.qq.pushEvent({
      post_type: "notice",
      notice_type: "notify",
      sub_type: "poke",
      ...(chat.chatType === "group" && { group_id: jsonId(chat.peerId) }),
      user_id: jsonId(message.userId),
      target_id: jsonId(message.notice.targetId),
    });
    return;
  }
  const segments = message.segments.flatMap((segment) => wireSegment(segment, context));
  if (segments.length === 0) return;
  const input = {
    userId: message.userId,
    nickname: message.senderName,
    message: segments,
    messageId: jsonId(message.messageId),
  };
  if (chat.chatType === "group") bot.qq.pushGroupMessage({ ...input, groupId: chat.peerId });
  else bot.qq.pushPrivateMessage(input);
}

/**
 * A stored segment on the wire. A quote of a fed message stays; a quote of the live bot's message
 * quotes the candidate's last message instead (the member was answering the bot), or is dropped
 * when the candidate has not spoken; a quote of anything else (a recalled message, one outside
 * the window) is dropped, as the candidate's chat never had it.
 */
function wireSegment(
  segment: Segment,
  context: { fedIds: Set<string>; liveIds: Set<string>; lastSent: string | undefined },
): WireSegment[] {
  if (segment.type === "reply") {
    const id = String(segment.data.id);
    if (context.fedIds.has(id)) return [{ type: "reply", data: { id: jsonId(id) } }];
    if (context.liveIds.has(id) && context.lastSent !== undefined)
      return [{ type: "reply", data: { id: jsonId(context.lastSent) } }];
    return [];
  }
  return [{ type: segment.type, data: segment.data }];
}

/** The captured sends with the why of each, and the run's totals, from the candidate's monitor events. */
function explain(
  sent: Array<{ wireId: string; text: string; time: number; after?: string }>,
  seen: MonitorEvent[],
  bot: EvalBot,
  fed: number,
): CandidateRun {
  const triggerOf = new Map<string, string>();
  for (const event of seen)
    if (event.type === "message.ingested" && typeof event.data.trigger === "string")
      triggerOf.set(String(event.data.messageId), event.data.trigger);
  const turnTriggers = new Map<string, string[]>();
  for (const event of seen)
    if (event.type === "turn.started" && event.replyId !== undefined && Array.isArray(event.data.triggerIds))
      turnTriggers.set(event.replyId, event.data.triggerIds.map(String));
  const replyOf = new Map<string, string>();
  for (const event of seen)
    if (event.type === "message.sent" && event.replyId !== undefined)
      replyOf.set(String(event.data.messageId), event.replyId);
  const decisions: CandidateRun["decisions"] = new Map();
  const holds: GovernorHold[] = [];
  for (const event of seen) {
    if (event.type !== "participation.decided") continue;
    const data = event.data as {
      joined?: boolean;
      rule?: string;
      score?: number;
      threshold?: number;
      messageId?: string;
    };
    const decision = {
      joined: data.joined === true,
      ...(data.rule !== undefined && { rule: data.rule }),
      ...(typeof data.score === "number" && { score: data.score }),
      ...(typeof data.threshold === "number" && { threshold: data.threshold }),
    };
    if (data.messageId !== undefined) decisions.set(String(data.messageId), decision);
    if (!decision.joined && data.rule !== undefined && data.rule !== "score")
      holds.push({
        time: event.time,
        rule: data.rule,
        ...(data.messageId !== undefined && { after: String(data.messageId) }),
        ...(decision.score !== undefined && { score: decision.score, threshold: decision.threshold }),
      });
  }

  const messages = sent.map((message): CandidateMessage => {
    const replyId = replyOf.get(message.wireId);
    const triggerIds = replyId === undefined ? [] : (turnTriggers.get(replyId) ?? []);
    const trigger = triggerIds.map((id) => triggerOf.get(id)).find((found) => found !== undefined);
    const joined = triggerIds.map((id) => decisions.get(id)).find((decision) => decision?.joined);
    const unasked = replyId !== undefined && trigger === undefined;
    const why: MessageWhy = {
      trigger: trigger ?? (unasked ? "unasked" : "command"),
      ...(unasked && joined?.score !== undefined && { score: joined.score, threshold: joined.threshold }),
      ...(replyId !== undefined && { replyId }),
    };
    return {
      time: Math.round(message.time),
      text: message.text,
      unasked,
      ...(message.after !== undefined && { after: message.after }),
      why,
    };
  });

  const calls = seen.filter((event) => event.type === "planner.round" || event.type === "replyer.generated");
  let tokens = 0;
  let cost: number | undefined;
  for (const call of calls) {
    const usage = call.data.usage as Partial<LlmTokenUsage> | undefined;
    const model = String(call.data.model);
    const slash = model.indexOf("/");
    const priced = withCost(
      {
        time: call.time,
        task: call.type === "planner.round" ? "planner" : "replyer",
        provider: model.slice(0, slash),
        model: model.slice(slash + 1),
        promptTokens: usage?.promptTokens ?? 0,
        completionTokens: usage?.completionTokens ?? 0,
        ...(usage?.cachedPromptTokens !== undefined && { cachedPromptTokens: usage.cachedPromptTokens }),
        latencyMs: Number(call.data.latencyMs ?? 0),
        success: true,
      },
      bot.prices,
    );
    tokens += priced.promptTokens + priced.completionTokens;
    if (priced.cost !== undefined) cost = (cost ?? 0) + priced.cost;
  }
  return {
    messages,
    holds,
    decisions,
    turns: seen.filter((event) => event.type === "turn.started").length,
    modelCalls: calls.length,
    tokens,
    cost,
    failedTurns: seen
      .filter((event) => event.type === "turn.finished" && event.data.status === "failed")
      .map((event) => String(event.data.reason ?? "no reason given")),
    fed,
  };
}
