import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Batch } from "./batch.ts";

export interface RealtimeSettings {
  windowMs: number;
  maxWindowMs: number;
  maxMessages: number;
  maxChars: number;
}

interface OpenWindow {
  messages: ChatMessage[];
  triggerIds: string[];
  chars: number;
  quietTimer: NodeJS.Timeout;
  maxTimer: NodeJS.Timeout;
}

/**
 * Merges a sender's burst into one batch, so "hi" "bot" "what's up" gets one answer. A window
 * is keyed by session and sender; only a triggering message opens one, and later messages from
 * that sender join it. It flushes after `windowMs` of quiet, `maxWindowMs` after opening, or
 * when it reaches `maxMessages` / `maxChars`.
 */
export class RealtimeBatcher {
  private readonly windows = new Map<string, OpenWindow>();

  constructor(
    private settings: RealtimeSettings,
    private readonly onBatch: (batch: Batch) => void,
  ) {}

  updateSettings(settings: RealtimeSettings): void {
    this.settings = settings;
  }

  /** Offers a message; returns true when it was taken into a window. */
  offer(message: ChatMessage, triggered: boolean): boolean {
    const key = `${message.sessionId}::${message.userId}`;
    const open = this.windows.get(key);
    if (!open && !triggered) return false;
    const window = open ?? this.open(key);
    window.messages.push(message);
    if (triggered) window.triggerIds.push(message.messageId);
    window.chars += renderSegments(message.segments).length;
    const full =
      window.messages.length >= this.settings.maxMessages || window.chars >= this.settings.maxChars;
    // windowMs 0 turns batching off: the trigger goes to the agent at once, not a timer tick later.
    if (full || this.settings.windowMs === 0) {
      this.flush(key);
    } else {
      window.quietTimer.refresh();
    }
    return true;
  }

  /** Flushes every open window (shutdown). */
  flushAll(): void {
    for (const key of [...this.windows.keys()]) this.flush(key);
  }

  private open(key: string): OpenWindow {
    const window: OpenWindow = {
      messages: [],
      triggerIds: [],
      chars: 0,
      quietTimer: setTimeout(() => this.flush(key), this.settings.windowMs),
      maxTimer: setTimeout(() => this.flush(key), this.settings.maxWindowMs),
    };
    this.windows.set(key, window);
    return window;
  }

  private flush(key: string): void {
    const window = this.windows.get(key);
    if (!window) return;
    this.windows.delete(key);
    clearTimeout(window.quietTimer);
    clearTimeout(window.maxTimer);
    const first = window.messages[0]!;
    this.onBatch({
      kind: "realtime",
      sessionId: first.sessionId,
      messages: window.messages,
      triggerIds: window.triggerIds,
    });
  }
}
