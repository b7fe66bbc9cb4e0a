/**
 * What a played scenario scores: its expectations checked against what the bot sent, and the
 * figures of the report (messages, model calls and tokens of the scenario's chats, latency).
 */
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import { clip } from "../../src/util/values.ts";
import type { BotMessage, ScenarioPlay } from "./play.ts";
import type { Scenario } from "./scenario.ts";

export interface ScenarioResult {
  name: string;
  file: string;
  /** The config the bot ran with (its file, or "scripted"). */
  config: string;
  passed: boolean;
  failures: string[];
  botMessages: number;
  modelCalls: number;
  tokens: number;
  /** From the first step to the bot's first message; null when it never spoke. */
  latencyMs: number | null;
  /** What the bot sent, in order. */
  messages: string[];
}

/**
 * Internal text a member must never see: the transcript's message-id tags, reasoning and
 * tool-call markup, and the sentinels models use for "say nothing".
 */
const LEAKS: Array<{ what: string; pattern: RegExp }> = [
  { what: "message-id tag", pattern: /msg_id\s*[=:]|\[id[=:]\s*\d+\]/i },
  { what: "think markup", pattern: /<\/?(think|thinking|reasoning)>/i },
  {
    what: "tool-call markup",
    pattern:
      /<\/?(tool_call|tool_calls|function_call|tool_use|invoke)\b|<\|[a-z_]+\|>|"(tool_calls|arguments)"\s*:/i,
  },
  {
    what: "silence sentinel",
    pattern: /\b(NO_REPLY|NO_RESPONSE|SKIP|SILENT)\b|\[(no reply|silence|沉默|不回复)\]/,
  },
];

/** Two messages this similar (Dice coefficient of their character pairs) count as a repeat. */
const NEAR_REPEAT = 0.8;

export function scoreScenario(scenario: Scenario, config: string, play: ScenarioPlay): ScenarioResult {
  const failures = [...play.failures, ...expectationFailures(scenario, play), ...failedTurns(play.events)];
  const calls = play.events.filter(
    (event) => event.type === "planner.round" || event.type === "replyer.generated",
  );
  return {
    name: scenario.name,
    file: scenario.file,
    config,
    passed: failures.length === 0,
    failures,
    botMessages: play.sent.length,
    modelCalls: calls.length,
    tokens: calls.reduce((sum, event) => sum + tokensOf(event), 0),
    latencyMs: play.firstMessageMs ?? null,
    messages: play.sent.map((message) => message.text),
  };
}

function expectationFailures(scenario: Scenario, play: ScenarioPlay): string[] {
  const expect = scenario.expect;
  const sent = play.sent;
  const failures: string[] = [];
  if (expect.minBotMessages !== undefined && sent.length < expect.minBotMessages)
    failures.push(`${sent.length} bot message(s), expected at least ${expect.minBotMessages}`);
  if (expect.maxBotMessages !== undefined && sent.length > expect.maxBotMessages)
    failures.push(`${sent.length} bot message(s), expected at most ${expect.maxBotMessages}`);
  for (const wanted of expect.mustContain ?? []) {
    if (!sent.some((message) => message.text.includes(wanted)))
      failures.push(`mustContain "${wanted}": in no bot message`);
  }
  for (const unwanted of expect.mustNotContain ?? []) {
    const found = sent.find((message) => message.text.includes(unwanted));
    if (found) failures.push(`mustNotContain "${unwanted}": sent ${quoted(found)}`);
  }
  if (expect.noLeaks) failures.push(...leaks(sent));
  if (expect.noRepeats) failures.push(...repeats(sent));
  if (expect.quotes !== undefined) {
    const target = play.messageIds[expect.quotes];
    if (!sent.some((message) => message.quotes !== undefined && message.quotes === target))
      failures.push(`quotes: no bot message quotes steps[${expect.quotes}]`);
  }
  return failures;
}

function leaks(sent: BotMessage[]): string[] {
  return sent.flatMap((message) =>
    LEAKS.filter(({ pattern }) => pattern.test(message.text)).map(
      ({ what }) => `leak (${what}): ${quoted(message)}`,
    ),
  );
}

function repeats(sent: BotMessage[]): string[] {
  const failures: string[] = [];
  sent.forEach((message, index) => {
    const earlier = sent.slice(0, index).find((other) => similarity(other.text, message.text) >= NEAR_REPEAT);
    if (earlier) failures.push(`repeat: ${quoted(message)} after ${quoted(earlier)}`);
  });
  return failures;
}

/** Dice coefficient of the character pairs of the two texts, punctuation and spaces left out. */
function similarity(a: string, b: string): number {
  const left = pairs(a);
  const right = pairs(b);
  if (left.length === 0 || right.length === 0) return normalized(a) === normalized(b) ? 1 : 0;
  const remaining = new Map<string, number>();
  for (const pair of right) remaining.set(pair, (remaining.get(pair) ?? 0) + 1);
  let shared = 0;
  for (const pair of left) {
    const count = remaining.get(pair) ?? 0;
    if (count > 0) {
      shared++;
      remaining.set(pair, count - 1);
    }
  }
  return (2 * shared) / (left.length + right.length);
}

function normalized(text: string): string {
  return text.replace(/[\p{P}\p{S}\s]/gu, "").toLowerCase();
}

function pairs(text: string): string[] {
  const chars = [...normalized(text)];
  return chars.slice(1).map((char, index) => `${chars[index]}${char}`);
}

/** A turn that failed (a model error, a send refused) is a failure of the scenario too. */
function failedTurns(events: MonitorEvent[]): string[] {
  return events
    .filter((event) => event.type === "turn.finished" && event.data.status === "failed")
    .map((event) => `turn failed: ${String(event.data.reason ?? "no reason given")}`);
}

function tokensOf(event: MonitorEvent): number {
  const usage = event.data.usage as { promptTokens?: number; completionTokens?: number } | undefined;
  return (usage?.promptTokens ?? 0) + (usage?.completionTokens ?? 0);
}

function quoted(message: BotMessage): string {
  return `"${clip(message.text, 60)}"`;
}
