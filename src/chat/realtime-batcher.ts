import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Batch, UnaskedJoin } from "./batch.ts";
import type { Clock, Timer } from "./clock.ts";
import type { RealtimeSettings } from "./config.ts";

/** Why a window closed: quiet for `windowMs`, open for `maxWindowMs`, full, or shutting down. */
export type RealtimeFlushReason = "quiet" | "max-window" | "max-messages" | "max-chars" | "shutdown";

interface OpenWindow {
  messages: ChatMessage[];
  triggerIds: string[];
  /** Set while only unasked messages (participation) opened and joined it: no one addressed the bot. */
  unasked?: UnaskedJoin;
  chars: number;
  /** Restarted by every message the window takes. */
  quietTimer?: Timer;
  maxTimer: Timer;
}

/**
 * Merges a sender's burst into one batch, so "hi" "bot" "what's up" gets one answer. A window
 * is keyed by session and sender; only a triggering message opens one, and later messages from
 * that sender join it. It flushes after `windowMs` of quiet, `maxWindowMs` after opening, or
 * when it reaches `maxMessages` / `maxChars`, or on shutdown (`flushAll`).
 */
export class RealtimeBatcher {
  private readonly windows = new Map<string, OpenWindow>();

  constructor(
    private readonly settings: () => RealtimeSettings,
    private readonly clock: Clock,
    private readonly onBatch: (batch: Batch, reason: RealtimeFlushReason) => void,
  ) {}

  /**
   * Offers a message; returns true when it was taken into a window. `unasked`: nobody addressed
   * the bot, but participation joins the conversation at this message: it opens a window too.
   */
  offer(message: ChatMessage, triggered: boolean, unasked?: UnaskedJoin): boolean {
    const key = `${message.sessionId}::${message.userId}`;
    const open = this.windows.get(key);
    const starts = triggered || unasked !== undefined;
    if (!open && !starts) return false;
    const window = open ?? this.open(key, triggered ? undefined : unasked);
    window.messages.push(message);
    if (starts) window.triggerIds.push(message.messageId);
    if (triggered) delete window.unasked;
    window.chars += renderSegments(message.segments).length;
    if (window.messages.length >= this.settings().maxMessages) {
      this.flush(key, "max-messages");
    } else if (window.chars >= this.settings().maxChars) {
      this.flush(key, "max-chars");
    } else if (this.settings().windowMs === 0) {
      // windowMs 0 turns batching off: the trigger goes to the agent at once, not a timer tick later.
      this.flush(key, "quiet");
    } else {
      window.quietTimer?.cancel();
      window.quietTimer = this.clock.setTimer(() => this.flush(key, "quiet"), this.settings().windowMs);
    }
    return true;
  }

  /** Flushes every open window (shutdown). */
  flushAll(): void {
    for (const key of [...this.windows.keys()]) this.flush(key, "shutdown");
  }

  private open(key: string, unasked: UnaskedJoin | undefined): OpenWindow {
    const window: OpenWindow = {
      messages: [],
      triggerIds: [],
      ...(unasked && { unasked }),
      chars: 0,
      maxTimer: this.clock.setTimer(() => this.flush(key, "max-window"), this.settings().maxWindowMs),
    };
    this.windows.set(key, window);
    return window;
  }

  private flush(key: string, reason: RealtimeFlushReason): void {
    const window = this.windows.get(key);
    if (!window) return;
    this.windows.delete(key);
    window.quietTimer?.cancel();
    window.maxTimer.cancel();
    const first = window.messages[0]!;
    this.onBatch(
      {
        kind: "realtime",
        sessionId: first.sessionId,
        messages: window.messages,
        triggerIds: window.triggerIds,
        ...(window.unasked && { unasked: window.unasked }),
      },
      reason,
    );
  }
}
