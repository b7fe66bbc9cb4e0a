/**
 * A replay's report: every point of the stored chat where the live bot or a candidate spoke,
 * side by side with why, and each candidate's totals; the JSON document (docs/eval.md, "Replay")
 * and the table printed for it.
 */
import { renderSegments } from "../../src/message/render.ts";
import { clip } from "../../src/util/values.ts";
import type { CandidateMessage, CandidateRun, GovernorHold, ReplaySpeed } from "./replay.ts";
import type { StoredChat, StoredChatMessage } from "./replay-source.ts";
import { table } from "./report.ts";

const TEXT_MAX = 48;

export interface ReplayReport {
  session: string;
  db: string;
  from: number | null;
  to: number | null;
  speed: ReplaySpeed;
  /** Member messages fed to the candidates, and recalled ones left out. */
  fed: number;
  recalled: number;
  live: { messages: Array<{ time: number; text: string; after?: string }> };
  candidates: Array<{
    config: string;
    messages: CandidateMessage[];
    turns: number;
    tokens: number;
    modelCalls: number;
    unaskedJoins: number;
    /** In `currency`; null when none of its models has a price in llm.prices. */
    cost: number | null;
    currency: string | null;
    governorHolds: { total: number; byRule: Record<string, number>; holds: GovernorHold[] };
    failedTurns: string[];
  }>;
  points: ReplayPoint[];
}

/** Where someone spoke: after which member message, what the live bot and each candidate said. */
export interface ReplayPoint {
  time: number;
  /** The member message it came after (null: before any). */
  after: { messageId: string; name: string; text: string } | null;
  live: string[];
  candidates: Array<{
    messages: Array<{ text: string; unasked: boolean; why: CandidateMessage["why"] }>;
    /** The candidate's participation decision on `after`, when it made one. */
    decision?: { joined: boolean; rule?: string; score?: number; threshold?: number };
  }>;
}

export function replayReport(input: {
  chat: StoredChat;
  db: string;
  window: { from?: number; to?: number };
  speed: ReplaySpeed;
  candidates: Array<{ config: string; run: CandidateRun; currency: string | undefined }>;
}): ReplayReport {
  const { chat } = input;
  const order = new Map(chat.messages.map((message, index) => [message.messageId, index]));
  const byId = new Map(chat.messages.map((message) => [message.messageId, message]));
  let lastMember: StoredChatMessage | undefined;
  const live: ReplayReport["live"]["messages"] = [];
  for (const message of chat.messages) {
    if (!message.fromSelf) {
      lastMember = message;
      continue;
    }
    live.push({
      time: message.time,
      text: renderSegments(message.segments).trim(),
      ...(lastMember && { after: lastMember.messageId }),
    });
  }

  const anchors = new Set<string | undefined>([
    ...live.map((message) => message.after),
    ...input.candidates.flatMap(({ run }) => run.messages.map((message) => message.after)),
  ]);
  const position = (id: string | undefined) => (id === undefined ? -1 : (order.get(id) ?? -1));
  const points = [...anchors]
    .sort((a, b) => position(a) - position(b))
    .map((anchor): ReplayPoint => {
      const message = anchor === undefined ? undefined : byId.get(anchor);
      const liveHere = live.filter((sent) => sent.after === anchor);
      const candidatesHere = input.candidates.map(({ run }) =>
        run.messages.filter((sent) => sent.after === anchor),
      );
      return {
        time: liveHere[0]?.time ?? candidatesHere.flat()[0]?.time ?? message?.time ?? 0,
        after: message
          ? { messageId: message.messageId, name: message.senderName, text: memberText(message) }
          : null,
        live: liveHere.map((sent) => sent.text),
        candidates: input.candidates.map(({ run }, index) => {
          const decision = anchor === undefined ? undefined : run.decisions.get(anchor);
          return {
            messages: (candidatesHere[index] ?? []).map(({ text, unasked, why }) => ({ text, unasked, why })),
            ...(decision && { decision }),
          };
        }),
      };
    });

  return {
    session: chat.sessionId,
    db: input.db,
    from: input.window.from ?? null,
    to: input.window.to ?? null,
    speed: input.speed,
    fed: input.candidates[0]?.run.fed ?? 0,
    recalled: chat.messages.filter((message) => !message.fromSelf && message.recalledAt !== undefined).length,
    live: { messages: live },
    candidates: input.candidates.map(({ config, run, currency }) => {
      const byRule: Record<string, number> = {};
      for (const hold of run.holds) byRule[hold.rule] = (byRule[hold.rule] ?? 0) + 1;
      return {
        config,
        messages: run.messages,
        turns: run.turns,
        tokens: run.tokens,
        modelCalls: run.modelCalls,
        unaskedJoins: run.messages.filter((message) => message.unasked).length,
        cost: run.cost ?? null,
        currency: run.cost === undefined ? null : (currency ?? null),
        governorHolds: { total: run.holds.length, byRule, holds: run.holds },
        failedTurns: run.failedTurns,
      };
    }),
    points,
  };
}

/** The table: a row per point (the live column, then a column per candidate), then the totals. */
export function replayTable(report: ReplayReport): string {
  const header = ["time", "after", "live", ...report.candidates.map((candidate) => candidate.config)];
  const rows = report.points.map((point) => [
    clock(point.time),
    point.after ? clip(`${point.after.name}: ${point.after.text}`, TEXT_MAX / 2) : "-",
    point.live.length > 0 ? point.live.map((text) => clip(text, TEXT_MAX)).join(" / ") : "-",
    ...point.candidates.map((candidate) => candidateCell(candidate)),
  ]);
  const totals = report.candidates.map((candidate) => {
    const cost =
      candidate.cost === null
        ? "no prices"
        : `${candidate.cost.toFixed(4)} ${candidate.currency ?? ""}`.trim();
    const holds = Object.entries(candidate.governorHolds.byRule)
      .map(([rule, count]) => `${rule} ×${count}`)
      .join(", ");
    return (
      `total ${candidate.config}: ${candidate.messages.length} messages (${candidate.unaskedJoins} unasked) · ` +
      `${candidate.turns} turns · ${candidate.modelCalls} model calls · ${candidate.tokens} tokens · ${cost} · ` +
      `${candidate.governorHolds.total} governor holds${holds ? ` (${holds})` : ""}` +
      (candidate.failedTurns.length > 0 ? ` · ${candidate.failedTurns.length} failed turns` : "")
    );
  });
  return [
    `replay of ${report.session}: ${report.fed} member messages fed` +
      (report.recalled > 0 ? `, ${report.recalled} recalled left out` : "") +
      `; live bot: ${report.live.messages.length} messages`,
    rows.length > 0 ? table(header, rows) : "(nobody spoke: neither the live bot nor a candidate)",
    ...totals,
  ].join("\n");
}

function candidateCell(candidate: ReplayPoint["candidates"][number]): string {
  if (candidate.messages.length > 0)
    return candidate.messages
      .map((message) => `${whyTag(message)} ${clip(message.text, TEXT_MAX)}`)
      .join(" / ");
  const decision = candidate.decision;
  if (!decision || decision.joined) return "-";
  if (decision.rule === "score" && decision.score !== undefined)
    return `- (score ${decision.score.toFixed(2)} < ${decision.threshold?.toFixed(2)})`;
  return `- (held: ${decision.rule})`;
}

function whyTag(message: { unasked: boolean; why: CandidateMessage["why"] }): string {
  if (!message.unasked) return `[${message.why.trigger}]`;
  return message.why.score === undefined
    ? "[unasked]"
    : `[unasked ${message.why.score.toFixed(2)}≥${message.why.threshold?.toFixed(2)}]`;
}

/** A member message as the report shows it: its text, a poke as 戳一戳. */
function memberText(message: StoredChatMessage): string {
  if (message.notice?.type === "poke") return "[戳一戳]";
  return renderSegments(message.segments).trim();
}

function clock(time: number): string {
  const date = new Date(time);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getMonth() + 1}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
