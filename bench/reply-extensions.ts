/**
 * Reply extensions (issue #6).
 *
 * 1. What the host adds to a reply that selects two extensions: reading `plugin_options`,
 *    `prepare` of both, `before_send` of both (one attaching a 64 KB picture, the other
 *    handing it back by hash) and the OneBot mapping, with handlers that do nothing else.
 * 2. What a voice reply costs: the built-in voice plugin's espeak-ng synthesis of a typical
 *    sentence (wall time and audio length), the part a user waits for.
 */
import { randomBytes } from "node:crypto";
import { Ajv } from "ajv";
import { synthesize } from "../plugins/voice/espeak.ts";
import { buildReplyExtension } from "../src/components/extension-builder.ts";
import { ReplyExtensionRegistry } from "../src/components/extension-registry.ts";
import { createLogger } from "../src/log/logger.ts";
import type { ChatMessage } from "../src/message/inbound.ts";
import { MonitorHub } from "../src/monitor/monitor.ts";
import { ReplyExtensionRunner } from "../src/reply/extension-runner.ts";
import type { PluginSpeech, ReplyExtensionPayload } from "../src/sdk/types.ts";
import { percentile, round } from "./child.ts";

const WARMUP = 500;
const REPLIES = 5_000;
const SYNTHESES = 10;
const SENTENCE = "大家晚上好，今天的活动到这里就结束了，辛苦啦。";

export async function benchReplyExtensions(): Promise<Record<string, unknown>> {
  return { chain: await benchChain(), espeak: await benchEspeak() };
}

async function benchChain(): Promise<Record<string, unknown>> {
  const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false });
  const registry = new ReplyExtensionRegistry();
  const picture = randomBytes(64 * 1024).toString("base64");
  const add = (name: string, priority: number, beforeSend: (payload: ReplyExtensionPayload) => unknown) =>
    registry.add(
      buildReplyExtension(
        { pluginId: "bench", name },
        { parameters: { level: { type: "integer", default: 1 } }, priority },
        ajv,
        async (payload) => (payload.phase === "prepare" ? { extra_prompt: name } : beforeSend(payload)),
      ).component,
    );
  add("attach", 0, (payload) => ({
    messages: [
      ...payload.messages,
      { segments: [{ type: "image", data: "", binary_data_base64: picture }], quote_previous: true },
    ],
  }));
  add("by_hash", 1, (payload) => ({
    messages: payload.messages.map((message) => ({
      ...message,
      segments: message.segments.map((segment) =>
        segment.type === "image" ? { type: "image", data: "", hash: segment.hash } : segment,
      ),
    })),
  }));
  const runner = new ReplyExtensionRunner({
    registry,
    speech: () => ({}) as PluginSpeech,
    monitor: new MonitorHub(),
    logger: createLogger({ level: "silent" }),
  });
  const session = { sessionId: "onebot:10000:group:20000", chatType: "group" as const };
  const target: ChatMessage = {
    platform: "onebot",
    adapterId: "qq",
    selfId: "10000",
    sessionId: session.sessionId,
    chatType: "group",
    groupId: "20000",
    userId: "30001",
    senderName: "Alice",
    messageId: "1",
    segments: [],
    time: Date.now(),
    fromSelf: false,
  };
  const signal = new AbortController().signal;
  const reply = async (index: number) => {
    const selection = runner.select({ "bench.attach": {}, "bench.by_hash": { level: 2 } }, session);
    if (!selection.ok) throw new Error(selection.problem);
    const chain = runner.chain({ replyId: String(index), callId: "c", target, signal }, selection.selected);
    await chain.prepare();
    const group = await chain.beforeSend("好的", ["好的"]);
    if (group.length !== 2) throw new Error("unexpected group");
  };
  for (let i = 0; i < WARMUP; i++) await reply(i);
  const times: number[] = [];
  for (let i = 0; i < REPLIES; i++) {
    const started = process.hrtime.bigint();
    await reply(i);
    times.push(Number(process.hrtime.bigint() - started) / 1_000);
  }
  return {
    replies: REPLIES,
    extensions: 2,
    attachmentKiB: 64,
    p50Us: round(percentile(times, 50)),
    p99Us: round(percentile(times, 99)),
  };
}

async function benchEspeak(): Promise<Record<string, unknown>> {
  const settings = { command: "espeak-ng", voice: "cmn", speed: 175 };
  const signal = new AbortController().signal;
  const times: number[] = [];
  let audioSeconds = 0;
  try {
    for (let i = 0; i < SYNTHESES; i++) {
      const started = performance.now();
      const wav = await synthesize(SENTENCE, settings, signal);
      times.push(performance.now() - started);
      // espeak-ng writes 16-bit mono at 22050 Hz after a 44-byte header.
      audioSeconds = (wav.length - 44) / (22_050 * 2);
    }
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
  return {
    sentenceChars: SENTENCE.length,
    syntheses: SYNTHESES,
    p50Ms: round(percentile(times, 50)),
    maxMs: round(Math.max(...times)),
    audioSeconds: round(audioSeconds),
  };
}
