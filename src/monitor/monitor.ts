/**
 * What happened while handling messages, for the console's live timeline and for answering
 * "why did (or didn't) it reply?". Every stage emits events keyed by `replyId` where a turn
 * exists. Emitting is cheap when nobody listens; listeners must not throw or block.
 */
export type MonitorEventType =
  | "message.ingested"
  | "access.denied"
  | "limit.reached"
  | "batch.flushed"
  | "batch.trimmed"
  | "turn.started"
  | "quote.resolved"
  | "vision.described"
  | "vision.failed"
  | "vision.skipped"
  | "speech.transcribed"
  | "speech.failed"
  | "speech.skipped"
  | "tts.spoken"
  | "tts.failed"
  | "image.generated"
  | "image.failed"
  | "reminder.set"
  | "reminder.sent"
  | "reminder.cancelled"
  | "schedule.sent"
  | "sticker.learned"
  | "sticker.sent"
  | "planner.round"
  | "tool.called"
  | "hook.decision"
  | "reply.extension"
  | "replyer.generated"
  | "transcript.read"
  | "message.sent"
  | "turn.finished"
  | "plugin.loaded"
  | "plugin.failed"
  | "plugin.process"
  | "plugins.not_ready"
  | "mcp.server"
  | "adapter.connection"
  | "memory.recalled"
  | "memory.learned"
  | "expressions.learned"
  | "memory.forgotten"
  | "participation.decided"
  | "manage.action";

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

/** Fans events out to listeners (the console's timeline). */
export class MonitorHub implements Monitor {
  private readonly listeners: Fanout<MonitorEvent>;

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.listeners = new Fanout(onListenerError);
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Adds a listener; returns its disposer. */
  subscribe(listener: MonitorListener): () => void {
    return this.listeners.add(listener);
  }

  emit(input: MonitorInput): void {
    if (this.listeners.size === 0) return;
    this.listeners.publish({ ...input, time: input.time ?? Date.now() });
  }
}

/** Listeners of one kind of value, called in the order they were added; one that throws does not stop the rest. */
export class Fanout<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  get size(): number {
    return this.listeners.size;
  }

  /** Adds a listener; returns its disposer. */
  add(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(value: T): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
