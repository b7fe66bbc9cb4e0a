/**
 * Plays one scenario against an eval bot as the QQ side: each step becomes the OneBot frame
 * NapCat would send (a message with its at/reply/forward segments, a poke or a recall notice),
 * consecutive steps a short typing gap apart. Each scenario gets its own group and its own user
 * ids (the scenario's ids behind a per-scenario prefix), so scenarios sharing a bot never see
 * each other's chats or memories.
 */
import { formatSessionId } from "../../src/message/session-id.ts";
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import { jsonId, type SentMessage, type WireSegment } from "../../test/support/onebot-standin.ts";
import { sleep } from "../../test/support/wait.ts";
import { EVAL_SELF_ID, type EvalBot } from "./eval-bot.ts";
import type { MessageStep, Scenario } from "./scenario.ts";

/** Between two steps, as between two people typing. */
const STEP_GAP_MS = 300;
/** How long a `reply: true` step waits for its answer unless it says `within`. */
const DEFAULT_REPLY_WITHIN_MS = 30_000;
/** How long the bot may stay busy after a `reply: false` step or the last step. */
const SETTLE_LIMIT_MS = 60_000;
/** Quiet beyond the batching window after which a chat with no turn running is settled. */
const SETTLE_QUIET_MS = 500;

export interface BotMessage {
  /** Milliseconds since the scenario started. */
  atMs: number;
  text: string;
  /** The id of the message it quotes (a reply segment), if any. */
  quotes?: string;
  private: boolean;
}

export interface ScenarioPlay {
  sent: BotMessage[];
  /** The monitor events of the scenario's chats, in order. */
  events: MonitorEvent[];
  /** The wire message id of each message step (by step index). */
  messageIds: Array<string | undefined>;
  /** Per-step expectations that did not hold. */
  failures: string[];
  /** From the last step before the bot's first message to that message; undefined when it never spoke. */
  firstMessageMs?: number;
}

/** The wire ids of one scenario's chat: its group and its users. */
export function scenarioIds(index: number) {
  const prefix = `9${String(index).padStart(4, "0")}`;
  return { group: `8${String(index).padStart(5, "0")}`, user: (id: string) => `${prefix}${id}` };
}

export async function playScenario(bot: EvalBot, scenario: Scenario, index: number): Promise<ScenarioPlay> {
  const ids = scenarioIds(index);
  const users = new Set(
    scenario.steps.flatMap((step) => (step.kind === "message" ? [ids.user(step.user)] : [])),
  );
  const sessions = new Set([
    formatSessionId({ platform: "onebot", selfId: EVAL_SELF_ID, chatType: "group", peerId: ids.group }),
    ...[...users].map((user) =>
      formatSessionId({ platform: "onebot", selfId: EVAL_SELF_ID, chatType: "private", peerId: user }),
    ),
  ]);
  const startedAt = Date.now();
  const sent: Array<BotMessage & { messageId: string }> = [];
  let lastActivity = startedAt;
  const stopListening = bot.qq.onSent((message: SentMessage) => {
    const isPrivate = message.action === "send_private_msg";
    if (isPrivate ? !users.has(message.userId ?? "") : message.groupId !== ids.group) return;
    lastActivity = Date.now();
    sent.push({
      atMs: lastActivity - startedAt,
      text: renderedText(message.message),
      quotes: quotedId(message.message),
      private: isPrivate,
      messageId: String(message.messageId),
    });
  });
  const events = () =>
    bot.monitor.events
      .filter((entry) => entry.event === "monitor")
      .map((entry) => entry.data as MonitorEvent)
      .filter((event) => event.sessionId !== undefined && sessions.has(event.sessionId));
  let eventsSeen = 0;
  /**
   * Nothing is on its way in the scenario's chats and nothing happened there for a while, by
   * this process's clock (events can reach it late on a busy machine).
   */
  const isSettled = () => {
    const seen = events();
    if (seen.length > eventsSeen) {
      eventsSeen = seen.length;
      lastActivity = Date.now();
    }
    return !workPending(seen) && Date.now() - lastActivity >= bot.batchWindowMs + SETTLE_QUIET_MS;
  };
  /** Waits until `done` holds or, once `settledCounts` holds, the bot has settled; at most `limitMs`. */
  const waitUntil = async (done: () => boolean, limitMs: number, settledCounts = () => true) => {
    const deadline = Date.now() + limitMs;
    while (!done() && !(settledCounts() && isSettled()) && Date.now() < deadline) await sleep(20);
  };

  const messageIds: Array<string | undefined> = [];
  const failures: string[] = [];
  /** When each step other than a wait was sent, in milliseconds since the start. */
  const pushedAtMs: number[] = [];
  try {
    for (const [stepIndex, step] of scenario.steps.entries()) {
      if (step.kind === "wait") {
        await sleep(step.wait);
        continue;
      }
      const pushedAt = Date.now();
      lastActivity = pushedAt;
      pushedAtMs.push(pushedAt - startedAt);
      if (step.kind === "message") {
        const chatOf = (message: BotMessage) => message.private === (step.private === true);
        const lastBotMessage = sent.filter(chatOf).at(-1)?.messageId;
        const segments = messageSegments(bot, step, `${ids.group}-${stepIndex}`, ids.user, {
          messageIds,
          lastBotMessage,
        });
        if (segments.problem) failures.push(`steps[${stepIndex}]: ${segments.problem}`);
        const user = ids.user(step.user);
        const input = { userId: user, nickname: step.name, message: segments.segments };
        messageIds[stepIndex] = step.private
          ? bot.qq.pushPrivateMessage(input)
          : bot.qq.pushGroupMessage({ ...input, groupId: ids.group });
        if (step.expect) {
          const since = pushedAt - startedAt;
          const answered = () => sent.some((message) => chatOf(message) && message.atMs >= since);
          if (step.expect.reply) {
            const within = step.expect.within ?? DEFAULT_REPLY_WITHIN_MS;
            // Only triggers show in the monitor stream: the wait ends early once the bot took this
            // message in as one and then settled without answering.
            const id = messageIds[stepIndex];
            const takenIn = () =>
              events().some(
                (event) => event.type === "message.ingested" && String(event.data.messageId) === id,
              );
            await waitUntil(answered, within, takenIn);
            if (!answered())
              failures.push(`steps[${stepIndex}]: no reply (the bot settled or ${within} ms passed)`);
          } else {
            await waitUntil(() => false, step.expect.within ?? SETTLE_LIMIT_MS);
            const answer = sent.find((message) => chatOf(message) && message.atMs >= since);
            if (answer) failures.push(`steps[${stepIndex}]: expected no reply, got "${answer.text}"`);
          }
        }
      } else if (step.kind === "poke") {
        bot.qq.pushEvent({
          post_type: "notice",
          notice_type: "notify",
          sub_type: "poke",
          group_id: jsonId(ids.group),
          user_id: jsonId(ids.user(step.poke)),
          target_id: jsonId(EVAL_SELF_ID),
        });
      } else {
        const recalled = scenario.steps[step.recall] as MessageStep;
        const user = ids.user(recalled.user);
        bot.qq.pushEvent(
          recalled.private
            ? {
                post_type: "notice",
                notice_type: "friend_recall",
                user_id: user,
                message_id: messageIds[step.recall],
              }
            : {
                post_type: "notice",
                notice_type: "group_recall",
                group_id: Number(ids.group),
                user_id: user,
                operator_id: user,
                message_id: messageIds[step.recall],
              },
        );
      }
      await sleep(STEP_GAP_MS);
    }
    await waitUntil(() => false, SETTLE_LIMIT_MS);
  } finally {
    stopListening();
  }
  const first = sent[0];
  const firstMessageMs = first && first.atMs - (pushedAtMs.filter((atMs) => atMs <= first.atMs).at(-1) ?? 0);
  return {
    sent: sent.map(({ messageId: _id, ...message }) => message),
    events: events(),
    messageIds,
    failures,
    ...(firstMessageMs === undefined ? {} : { firstMessageMs }),
  };
}

/**
 * Whether the bot still has work in hand, as its monitor stream shows: a trigger not yet in a
 * batch (nor answered otherwise), or a turn still running.
 */
export function workPending(seen: MonitorEvent[]): boolean {
  const ingested = seen.filter((event) => event.type === "message.ingested");
  const waitingTrigger = ingested.some((event) => {
    if (event.data.trigger == null) return false;
    const after = seen.slice(seen.indexOf(event) + 1);
    return !after.some(
      (later) =>
        later.type === "turn.finished" ||
        later.type === "message.sent" ||
        // Held back by participation's rules (another bot's mention): no batch will come.
        (later.type === "participation.decided" &&
          later.data.joined === false &&
          String(later.data.messageId) === String(event.data.messageId)) ||
        (later.type === "batch.flushed" &&
          Array.isArray(later.data.messageIds) &&
          later.data.messageIds.map(String).includes(String(event.data.messageId))),
    );
  });
  const started = seen.filter((event) => event.type === "turn.started").length;
  const finished = seen.filter((event) => event.type === "turn.finished").length;
  return waitingTrigger || started > finished;
}

/** A message step's segments: a quote, the text with each `@bot` as an at of the bot, a forward. */
function messageSegments(
  bot: EvalBot,
  step: MessageStep,
  forwardId: string,
  wireUser: (id: string) => string,
  earlier: { messageIds: Array<string | undefined>; lastBotMessage: string | undefined },
): { segments: WireSegment[]; problem?: string } {
  const segments: WireSegment[] = [];
  let problem: string | undefined;
  if (step.reply_to !== undefined) {
    const target = step.reply_to === "bot" ? earlier.lastBotMessage : earlier.messageIds[step.reply_to];
    if (target === undefined) problem = "reply_to: bot, but the bot has not spoken in this chat yet";
    else segments.push({ type: "reply", data: { id: target } });
  }
  step.text.split("@bot").forEach((part, position) => {
    if (position > 0) segments.push({ type: "at", data: { qq: EVAL_SELF_ID } });
    if (part !== "") segments.push({ type: "text", data: { text: part } });
  });
  if (step.forward) {
    bot.qq.setForward(forwardId, {
      messages: step.forward.map((node) => ({
        sender: { user_id: wireUser(node.user), nickname: node.name, card: "" },
        message: [{ type: "text", data: { text: node.text } }],
      })),
    });
    segments.push({ type: "forward", data: { id: forwardId } });
  }
  return problem ? { segments, problem } : { segments };
}

/**
 * A sent message as a member reads it: its text, an at as `@qq` (`@全体成员` for everyone), a
 * voice message (send_voice) as `[语音]` and a picture (generate_image, stickers) as `[图片]`.
 */
export function renderedText(message: unknown): string {
  if (typeof message === "string") return message;
  if (!Array.isArray(message)) return "";
  return (message as WireSegment[])
    .map((segment) => {
      if (segment.type === "text") return String(segment.data.text ?? "");
      if (segment.type === "at")
        return segment.data.qq === "all" ? "@全体成员" : `@${String(segment.data.qq)}`;
      if (segment.type === "record") return "[语音]";
      if (segment.type === "image") return "[图片]";
      return "";
    })
    .join("");
}

function quotedId(message: unknown): string | undefined {
  if (!Array.isArray(message)) return undefined;
  const reply = (message as WireSegment[]).find((segment) => segment.type === "reply");
  return reply ? String(reply.data.id) : undefined;
}
