import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { guardReply } from "../reply/outbound-guard.ts";
import type { ReplyResult } from "../reply/reply-stage.ts";
import type { Reminder, ReminderStore } from "../store/types.ts";
import type { ReminderSettings } from "./config.ts";
import { type ReadTime, readTime, wallClockText } from "./reminder-time.ts";

export interface ReminderServiceDeps {
  store: ReminderStore;
  settings: () => ReminderSettings;
  timeZone: () => string;
  /** Words a message in the persona; rejects when no replyer model answers. */
  llm: () => { generate(request: LlmRequest): Promise<LlmResult> };
  /** The persona in force in a session (its group's, over bot.persona). */
  persona: (sessionId: string) => string;
  /** The prompt templates in use: every text a member reads, and the replyer's request. */
  templates: () => PromptTemplates;
  /**
   * Says a message in the chat as the bot's own turn there, in the session's order: the outbound
   * guard, `before_send` reply extensions, the text limit, no @全体成员 (reply/own-message.ts).
   */
  say: (message: { origin: Reminder["origin"]; text: string; mention?: string }) => Promise<ReplyResult>;
  monitor: Monitor;
  logger: Logger;
  now?: () => number;
}

export type SetReminder = { ok: true; reminder: Reminder } | { ok: false; reason: string };

/** How often the store is asked for due reminders: they go out within this of their time. */
const POLL_MS = 1_000;
/** Sent more than this after its time, a reminder says it is late. */
const LATE_AFTER_MS = 60_000;
const WORDING_TIMEOUT_MS = 20_000;
const DUE_PER_POLL = 20;
const MAX_TEXT_CHARS = 500;

/**
 * Reminders: set (bounded per person and chat), listed, cancelled, and sent at their time. Every
 * instance sharing the database polls; a reminder is claimed by one conditional update before it
 * is sent, so exactly one instance sends it, once. One found long past its time (the bot was
 * down beyond `reminders.maxLateMs`) is marked expired; one a little late is sent and says so.
 * A crash between the claim and the send loses that reminder rather than sending it twice.
 */
export class ReminderService {
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly deps: ReminderServiceDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  enabled(): boolean {
    return this.deps.settings().enabled;
  }

  /** `YYYY-MM-DD HH:mm` in chat.timezone. */
  timeText(ms: number): string {
    return wallClockText(ms, this.deps.timeZone());
  }

  /** chat.timezone, or "local time" when it is the process's own. */
  timeZoneName(): string {
    return this.deps.timeZone() || "local time";
  }

  /** A time from the start of `text`, in chat.timezone (reminder-time.ts). */
  readTime(text: string): ReadTime | undefined {
    return readTime(text, this.now(), this.deps.timeZone());
  }

  async set(
    request: Omit<Reminder, "id" | "status" | "late" | "createdAt" | "firedAt">,
  ): Promise<SetReminder> {
    const settings = this.deps.settings();
    const now = this.now();
    const text = [...request.text.trim()].slice(0, MAX_TEXT_CHARS).join("");
    const templates = this.deps.templates();
    const refused = (reason: string): SetReminder => ({ ok: false, reason });
    if (text === "") return refused(templates.render("reminder_refused_empty"));
    const time = this.timeText(request.dueAt);
    if (request.dueAt <= now) {
      return refused(templates.render("reminder_refused_past", { time, now: this.timeText(now) }));
    }
    if (request.dueAt - now > settings.maxDaysAhead * 86_400_000) {
      const days = String(settings.maxDaysAhead);
      return refused(templates.render("reminder_refused_too_far", { time, days }));
    }
    const inChat = await this.deps.store.pending({ sessionId: request.origin.sessionId });
    if (inChat.length >= settings.maxPerChat) {
      return refused(templates.render("reminder_refused_chat_full", { max: String(settings.maxPerChat) }));
    }
    if (inChat.filter((reminder) => reminder.userId === request.userId).length >= settings.maxPerPerson) {
      return refused(
        templates.render("reminder_refused_person_full", { max: String(settings.maxPerPerson) }),
      );
    }
    const reminder = await this.deps.store.add({ ...request, text, createdAt: now });
    this.deps.monitor.emit({
      type: "reminder.set",
      sessionId: reminder.origin.sessionId,
      data: { id: reminder.id, userId: reminder.userId, dueAt: reminder.dueAt, text: reminder.text },
    });
    return { ok: true, reminder };
  }

  /** Pending reminders of a chat (and person, when given). */
  pending(sessionId: string, userId?: string): Promise<Reminder[]> {
    return this.deps.store.pending({ sessionId, ...(userId === undefined ? {} : { userId }) });
  }

  recent(limit: number): Promise<Reminder[]> {
    return this.deps.store.recent(limit);
  }

  /** Cancels a pending reminder; `by` limits it to that person's reminders in that chat. */
  async cancel(id: number, by?: { sessionId: string; userId: string }): Promise<boolean> {
    if (by) {
      const mine = await this.deps.store.pending({ sessionId: by.sessionId, userId: by.userId });
      if (!mine.some((reminder) => reminder.id === id)) return false;
    }
    const cancelled = await this.deps.store.settle(id, "cancelled", this.now(), false);
    if (cancelled) this.deps.monitor.emit({ type: "reminder.cancelled", data: { id } });
    return cancelled;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Sends what is due; one poll at a time. Never rejects: a failure is logged and retried next poll. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const now = this.now();
      for (const reminder of await this.deps.store.due(now, DUE_PER_POLL)) {
        const lateMs = now - reminder.dueAt;
        if (lateMs > this.deps.settings().maxLateMs) {
          if (await this.deps.store.settle(reminder.id, "expired", now, true)) {
            this.deps.logger.warn(
              { id: reminder.id, dueAt: reminder.dueAt },
              "reminder expired: the bot was down past its time",
            );
          }
          continue;
        }
        const late = lateMs > LATE_AFTER_MS;
        if (!(await this.deps.store.settle(reminder.id, "sent", now, late))) continue;
        await this.deliver(reminder, late);
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, "checking due reminders failed");
    } finally {
      this.polling = false;
    }
  }

  private async deliver(reminder: Reminder, late: boolean): Promise<void> {
    const worded = await this.worded(reminder, late);
    const templates = this.deps.templates();
    const lateNote = late
      ? templates.render("reminder_late_note", { time: this.timeText(reminder.dueAt) })
      : "";
    const text = `${worded ?? templates.render("reminder_stored", { text: reminder.text })}${lateNote}`;
    const { origin } = reminder;
    try {
      const said = await this.deps.say({
        origin,
        text,
        ...(origin.chatType === "group" ? { mention: reminder.userId } : {}),
      });
      if ("silent" in said) throw new Error(said.silent);
      this.deps.monitor.emit({
        type: "reminder.sent",
        sessionId: reminder.origin.sessionId,
        data: { id: reminder.id, userId: reminder.userId, late, worded: worded !== undefined },
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, id: reminder.id }, "sending a reminder failed");
    }
  }

  /** The reminder in the persona's words; undefined (the stored text is sent) when the model cannot. */
  private async worded(reminder: Reminder, late: boolean): Promise<string | undefined> {
    const templates = this.deps.templates();
    try {
      const result = await this.deps.llm().generate({
        task: "replyer",
        messages: [
          { role: "system", content: this.deps.persona(reminder.origin.sessionId) },
          {
            role: "user",
            content: templates.render("reminder_due", {
              name: reminder.userName,
              time: this.timeText(reminder.dueAt),
              text: reminder.text,
              late: templates.render(late ? "reminder_due_late" : "reminder_due_now"),
            }),
          },
        ],
        maxOutputTokens: 200,
        signal: AbortSignal.timeout(WORDING_TIMEOUT_MS),
        sessionId: reminder.origin.sessionId,
      });
      // Only reasoning or a "say nothing" marker: the stored text goes instead.
      const guarded = guardReply(result.text);
      return "dropped" in guarded ? undefined : guarded.text;
    } catch (error) {
      this.deps.logger.info(
        { id: reminder.id, reason: error instanceof Error ? error.message : String(error) },
        "reminder sent as stored: the replyer model did not word it",
      );
      return undefined;
    }
  }
}
