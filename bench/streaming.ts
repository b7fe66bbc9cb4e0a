/**
 * Streamed replies and single mode (issue #15), against a scripted model that writes at a
 * fixed rate (one token = one character) after a fixed wait before its first token.
 *
 * 1. `replyer`: time from the trigger to the first and the last message sent, for a reply
 *    that splits into several messages, streamed as the bot does now, against the baseline
 *    of the same model answering whole (nothing arrives before the reply is complete, as
 *    without streaming), in the same run.
 * 2. `modes`: model calls per replied turn and time to the first message, `chat.mode:
 *    planner` (planner call, then the streamed replyer) against `single` (one planner call
 *    whose reply carries the text; tool arguments arrive whole).
 */

import { type BotHarness, startBot } from "../test/support/bot-harness.ts";
import { ALICE, GROUP, mention, SELF } from "../test/support/messages.ts";
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { ScriptedLlmServer, type ScriptedStep } from "../test/support/scripted-llm-server.ts";
import { median, round } from "./child.ts";

/** Tokens (characters) a second: a cheap hosted model's pace. */
const TOKENS_PER_SECOND = 40;
/** Wait before a model's first token (prompt processing and the network). */
const FIRST_TOKEN_MS = 400;
/** Four sentences, sent as four messages with `textChunkLimit: 40`. */
const REPLY =
  "这个问题我之前也遇到过，先看看日志里有没有报错。然后把配置文件里的端口改成别的再试一次。" +
  "如果还是不行，可以把完整的报错贴出来给大家看看。我晚上有空的话也可以帮你一起排查一下。";
const TEXT_CHUNK_LIMIT = 40;
/** A usual chat reply: one message. */
const SHORT_REPLY = "先看看日志里有没有报错吧。";
const INTENT = "告诉他怎么排查这个问题";
const RUNS = 3;

const generationMs = (text: string) => FIRST_TOKEN_MS + (text.length / TOKENS_PER_SECOND) * 1000;

interface TurnTimes {
  firstMs: number;
  lastMs: number;
  messages: number;
  modelCalls: number;
}

export async function benchStreaming(): Promise<Record<string, unknown>> {
  const streamedReply = (text: string): ScriptedStep => ({
    text,
    delayMs: FIRST_TOKEN_MS,
    stream: { tokensPerSecond: TOKENS_PER_SECOND },
  });
  const planned = (delayMs: number): ScriptedStep => ({
    toolCalls: [{ name: "reply", arguments: { intent: INTENT } }],
    delayMs,
  });
  const written = (text: string): ScriptedStep => ({
    toolCalls: [{ name: "reply", arguments: { text } }],
    delayMs: generationMs(text),
  });
  const planner = await withBot("planner", async (turn) => ({
    streamed: await turn(() => [planned(0), streamedReply(REPLY)]),
    whole: await turn(() => [planned(0), { text: REPLY, delayMs: generationMs(REPLY) }]),
    long: await turn(() => [planned(generationMs(INTENT)), streamedReply(REPLY)]),
    short: await turn(() => [planned(generationMs(INTENT)), streamedReply(SHORT_REPLY)]),
  }));
  const single = await withBot("single", async (turn) => ({
    long: await turn(() => [written(REPLY)]),
    short: await turn(() => [written(SHORT_REPLY)]),
  }));
  return {
    model: { tokensPerSecond: TOKENS_PER_SECOND, firstTokenMs: FIRST_TOKEN_MS },
    replyer: {
      replyChars: REPLY.length,
      messages: planner.streamed.messages,
      modelWholeReplyMs: round(generationMs(REPLY), 0),
      streamed: times(planner.streamed),
      baselineWhole: times(planner.whole),
    },
    modes: {
      longReply: { chars: REPLY.length, planner: times(planner.long), single: times(single.long) },
      shortReply: { chars: SHORT_REPLY.length, planner: times(planner.short), single: times(single.short) },
    },
  };
}

function times(turn: TurnTimes): Record<string, number> {
  return {
    firstMessageMs: round(turn.firstMs, 0),
    lastMessageMs: round(turn.lastMs, 0),
    messages: turn.messages,
    modelCalls: turn.modelCalls,
  };
}

type RunTurns = (script: () => ScriptedStep[]) => Promise<TurnTimes>;

/** A bot in `mode` with its model and OneBot stand-in; `use` runs turns and gets their median times. */
async function withBot<T>(mode: "planner" | "single", use: (turn: RunTurns) => Promise<T>): Promise<T> {
  const llm = await ScriptedLlmServer.start();
  const bot = await startBot({
    llm,
    config: {
      chat: { mode, textChunkLimit: TEXT_CHUNK_LIMIT, realtime: { windowMs: 0 } },
      plugins: { dirs: [] },
      log: { level: "warn" },
    },
  });
  const qq = new OneBotStandIn({ selfId: SELF });
  await qq.connectReverse(bot.wsUrl);
  let turns = 0;
  const turn: RunTurns = async (script) => {
    const runs: TurnTimes[] = [];
    for (let run = 0; run < RUNS; run++) {
      const requestsBefore = llm.requests.length;
      llm.enqueue(...script());
      runs.push(await timeTurn(bot, qq, ++turns));
      runs.at(-1)!.modelCalls = llm.requests.length - requestsBefore;
    }
    return {
      firstMs: median(runs.map((run) => run.firstMs)),
      lastMs: median(runs.map((run) => run.lastMs)),
      messages: runs[0]!.messages,
      modelCalls: runs[0]!.modelCalls,
    };
  };
  try {
    return await use(turn);
  } finally {
    await qq.close();
    await bot.dispose();
    await llm.close();
  }
}

async function timeTurn(bot: BotHarness, qq: OneBotStandIn, count: number): Promise<TurnTimes> {
  const sentAt: number[] = [];
  const stop = qq.onSent(() => sentAt.push(performance.now()));
  const started = performance.now();
  qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("端口总是被占用怎么办") });
  const finished = await bot.turnFinished(count, 30_000);
  stop();
  if (finished.data.status !== "replied")
    throw new Error(`bench turn ${finished.data.status}: ${finished.data.reason}`);
  return {
    firstMs: sentAt[0]! - started,
    lastMs: sentAt.at(-1)! - started,
    messages: sentAt.length,
    modelCalls: 0,
  };
}
