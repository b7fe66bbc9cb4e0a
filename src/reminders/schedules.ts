import { createHash } from "node:crypto";
import { Cron } from "croner";
import type { ChatAdapter } from "../adapters/types.ts";
import { clockText } from "../context/clock-text.ts";
import { formatMessageLine } from "../context/message-line.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import { formatSessionId } from "../message/session-id.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { ReplyResult } from "../reply/reply-stage.ts";
import { problemAt } from "../schema/key-path.ts";
import type { MessageStore, Reminder, ReminderStore } from "../store/types.ts";
import type { ScheduleEntry } from "./config.ts";

export interface ScheduledMessagesDeps {
  store: ReminderStore;
  messages: Pick<MessageStore, "recent">;
  schedules: () => ScheduleEntry[];
  timeZone: () => string;
  adapters: ReadonlyMap<string, ChatAdapter>;
  llm: () => { generate(request: LlmRequest): Promise<LlmResult> };
  /** The persona in force in a session (its group's, over bot.persona). */
  persona: (sessionId: string) => string;
  templates: () => PromptTemplates;
  /** Says a message as the bot's own turn in the chat, in the session's order (as reminders do). */
  say: (message: { origin: Reminder["origin"]; text: string }) => Promise<ReplyResult>;
  monitor: Monitor;
  logger: Logger;
}

const POLL_MS = 1_000;
/** Messages of the chat a prompt is carried out with (`summarise yesterday's chat`). */
const PROMPT_HISTORY = 100;
const PROMPT_TIMEOUT_MS = 60_000;

interface Armed {
  cron: Cron;
  /** The next time it fires (Unix ms), or undefined when the expression has none left. */
  next: number | undefined;
}

/**
 * `schedules:` entries: at each time of an entry's cron expression (in chat.timezone) its text
 * is sent, or its prompt carried out by the replyer model, in its chat. Every instance checks;
 * the first to record the time in the store sends it, so it goes out once. A time missed while
 * the bot was down is skipped: schedules are about now. Config edits apply on the next check.
 */
export class ScheduledMessages {
  private timer: NodeJS.Timeout | undefined;
  private readonly armed = new Map<string, Armed>();
  private checking = false;

  constructor(private readonly deps: ScheduledMessagesDeps) {}

  start(): void {
    this.timer ??= setInterval(() => void this.check(), POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const { cron } of this.armed.values()) cron.stop();
    this.armed.clear();
  }

  /** Fires the entries whose time has come; never rejects. */
  async check(now = Date.now()): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const entries = new Map(this.deps.schedules().map((entry) => [keyOf(entry), entry]));
      for (const key of this.armed.keys()) if (!entries.has(key)) this.armed.delete(key);
      for (const [key, entry] of entries) {
        const armed = this.arm(key, entry, now);
        if (armed?.next === undefined || armed.next > now) continue;
        const due = armed.next;
        armed.next = armed.cron.nextRun(new Date(now))?.getTime();
        if (await this.deps.store.claimScheduleRun(key, due)) await this.fire(entry, due);
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, "checking schedules failed");
    } finally {
      this.checking = false;
    }
  }

  private arm(key: string, entry: ScheduleEntry, now: number): Armed | undefined {
    let armed = this.armed.get(key);
    if (!armed) {
      // Validated at load (cross-checks): a bad expression never reaches here.
      const cron = new Cron(entry.cron, { paused: true, ...zoneOption(this.deps.timeZone()) });
      armed = { cron, next: cron.nextRun(new Date(now))?.getTime() };
      this.armed.set(key, armed);
    }
    return armed;
  }

  private async fire(entry: ScheduleEntry, due: number): Promise<void> {
    const origin = this.originOf(entry.chat);
    if (!origin) {
      this.deps.logger.warn({ chat: entry.chat }, "scheduled message not sent: no connected account");
      return;
    }
    try {
      const text = entry.text ?? (await this.carryOut(entry.prompt!, origin));
      const said = await this.deps.say({ origin, text });
      if ("silent" in said) throw new Error(said.silent);
      this.deps.monitor.emit({
        type: "schedule.sent",
        sessionId: origin.sessionId,
        data: { cron: entry.cron, chat: entry.chat, dueAt: due, prompt: entry.prompt !== undefined },
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, chat: entry.chat, cron: entry.cron }, "scheduled message not sent");
    }
  }

  /** The prompt carried out by the replyer in the persona, with the chat's latest messages. */
  private async carryOut(prompt: string, origin: Reminder["origin"]): Promise<string> {
    const recent = await this.deps.messages.recent({ sessionId: origin.sessionId, limit: PROMPT_HISTORY });
    const clock = clockText(this.deps.timeZone());
    const transcript = recent.map((message) => formatMessageLine(message, clock, {})).join("\n");
    const templates = this.deps.templates();
    const result = await this.deps.llm().generate({
      task: "replyer",
      messages: [
        { role: "system", content: this.deps.persona(origin.sessionId) },
        {
          role: "user",
          content: templates.render("schedule_prompt_request", {
            transcript: transcript || templates.render("transcript_empty"),
            prompt,
          }),
        },
      ],
      signal: AbortSignal.timeout(PROMPT_TIMEOUT_MS),
      sessionId: origin.sessionId,
    });
    const text = result.text.trim();
    if (text === "") throw new Error("the replyer model answered no text");
    return text;
  }

  /** `group:<id>` / `private:<id>` on the first adapter with a connected account. */
  private originOf(chat: string): Reminder["origin"] | undefined {
    const [chatType, peerId] = chat.split(":") as ["group" | "private", string];
    for (const adapter of this.deps.adapters.values()) {
      const account = adapter.accounts().find((candidate) => candidate.connected);
      if (!account) continue;
      const sessionId = formatSessionId({
        platform: adapter.platform,
        selfId: account.selfId,
        chatType,
        peerId,
      });
      return {
        platform: adapter.platform,
        adapterId: adapter.id,
        selfId: account.selfId,
        sessionId,
        chatType,
        ...(chatType === "group" ? { groupId: peerId } : {}),
        userId: chatType === "private" ? peerId : account.selfId,
      };
    }
    return undefined;
  }
}

/** An entry is known by what it says: an edited entry is a new one. */
function keyOf(entry: ScheduleEntry): string {
  return createHash("sha256")
    .update(JSON.stringify([entry.cron, entry.chat, entry.text ?? null, entry.prompt ?? null]))
    .digest("hex")
    .slice(0, 32);
}

function zoneOption(timeZone: string): { timezone?: string } {
  return timeZone === "" ? {} : { timezone: timeZone };
}

/** Problems of `schedules:` entries (config cross-checks): an unusable cron, not exactly one of text and prompt. */
export function findScheduleProblems(entries: ScheduleEntry[]): string[] {
  return entries.flatMap((entry, index) => {
    const problems: string[] = [];
    try {
      new Cron(entry.cron, { paused: true }).stop();
    } catch (error) {
      problems.push(
        problemAt(["schedules", index, "cron"], error instanceof Error ? error.message : String(error)),
      );
    }
    if ((entry.text === undefined) === (entry.prompt === undefined)) {
      problems.push(problemAt(["schedules", index], "needs exactly one of text and prompt"));
    }
    return problems;
  });
}
