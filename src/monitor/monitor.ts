/**
 * What happened while handling messages, for the console's live timeline and for answering
 * "why did (or didn't) it reply?". Every stage emits events keyed by `replyId` where a turn
 * exists. Emitting is cheap when nobody listens; listeners must not throw or block.
 */
export type MonitorEventType =
  | "message.ingested"
  | "turn.started"
  | "planner.round"
  | "tool.called"
  | "hook.decision"
  | "reply.extension"
  | "message.sent"
  | "turn.finished"
  | (string & {});

export interface MonitorEvent {
  type: MonitorEventType;
  /** Unix time in milliseconds. */
  time: number;
  replyId?: string;
  sessionId?: string;
  data: Record<string, unknown>;
}

export type MonitorInput = Omit<MonitorEvent, "time"> & { time?: number };

export interface Monitor {
  emit(event: MonitorInput): void;
}

export type MonitorListener = (event: MonitorEvent) => void;

/** Fans events out to listeners (the console's store and live stream). */
export class MonitorHub implements Monitor {
  private readonly listeners = new Set<MonitorListener>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Adds a listener; returns its disposer. */
  subscribe(listener: MonitorListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(input: MonitorInput): void {
    if (this.listeners.size === 0) return;
    const event: MonitorEvent = { ...input, time: input.time ?? Date.now() };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
