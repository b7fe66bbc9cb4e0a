import type { ChatMessage } from "../message/inbound.ts";
import type { Batch } from "./batch.ts";
import type { Clock, Timer } from "./clock.ts";
import type { DigestSettings } from "./config.ts";

/** `interval`: the timer found enough messages; `max-messages`: the buffer filled up first. */
export type DigestFlushReason = "interval" | "max-messages";

interface DigestBuffer {
  messages: ChatMessage[];
  timer: Timer;
}

/**
 * Gathers, per session, the messages nobody addressed to the bot, so it can read along. The
 * first message starts an `intervalMs` timer; when it fires with at least `minMessages`
 * gathered they go to the agent as one digest batch, otherwise the timer re-arms and keeps
 * gathering. Reaching `maxMessages` hands the digest over at once.
 */
export class DigestScheduler {
  private readonly buffers = new Map<string, DigestBuffer>();

  constructor(
    private readonly settings: () => DigestSettings,
    private readonly clock: Clock,
    private readonly onDigest: (batch: Batch, reason: DigestFlushReason) => void,
  ) {}

  /** Takes an untriggered message; the bot's own messages are not chatter to digest. */
  offer(message: ChatMessage): void {
    const settings = this.settings();
    if (!settings.enabled || message.fromSelf) return;
    const sessionId = message.sessionId;
    let buffer = this.buffers.get(sessionId);
    if (!buffer) {
      buffer = { messages: [], timer: this.arm(sessionId, settings.intervalMs) };
      this.buffers.set(sessionId, buffer);
    }
    buffer.messages.push(message);
    if (buffer.messages.length >= settings.maxMessages) this.flush(sessionId, "max-messages");
  }

  /** Drops every buffer and timer (shutdown); the messages themselves are stored. */
  stop(): void {
    for (const buffer of this.buffers.values()) buffer.timer.cancel();
    this.buffers.clear();
  }

  /** Sessions gathering a digest. */
  get pendingSessions(): number {
    return this.buffers.size;
  }

  private arm(sessionId: string, intervalMs: number): Timer {
    return this.clock.setTimer(() => this.intervalEnded(sessionId), intervalMs);
  }

  private intervalEnded(sessionId: string): void {
    const buffer = this.buffers.get(sessionId);
    if (!buffer) return;
    const settings = this.settings();
    if (!settings.enabled) {
      this.buffers.delete(sessionId);
    } else if (buffer.messages.length < settings.minMessages) {
      buffer.timer = this.arm(sessionId, settings.intervalMs);
    } else {
      this.flush(sessionId, "interval");
    }
  }

  private flush(sessionId: string, reason: DigestFlushReason): void {
    const buffer = this.buffers.get(sessionId);
    if (!buffer) return;
    this.buffers.delete(sessionId);
    buffer.timer.cancel();
    this.onDigest({ kind: "digest", sessionId, messages: buffer.messages, triggerIds: [] }, reason);
  }
}
