import type { MonitorEvent, MonitorEventType } from "./monitor.ts";

/** A monitor event as kept in storage; `id` increases in the order events were recorded. */
export interface StoredMonitorEvent extends MonitorEvent {
  id: number;
}

export interface MonitorEventQuery {
  replyId?: string;
  /** Only events of these types (all when absent). */
  types?: MonitorEventType[];
  /** Only events older than this id (paging backwards). */
  beforeId?: number;
  limit: number;
}

export interface TurnQuery {
  /** Matches the start of a reply id or any part of a session id. */
  search?: string;
  /** Only turns that started before the event with this id (paging backwards). */
  beforeId?: number;
  limit: number;
}

/** One turn as the timeline lists it, from its `turn.started` and `turn.finished` events. */
export interface TurnSummary {
  /** Id of the `turn.started` event, for paging. */
  id: number;
  replyId: string;
  sessionId: string;
  startedAt: number;
  /** Absent while the turn is still running. */
  finishedAt?: number;
  status?: string;
  reason?: string;
  /** Planner rounds recorded so far. */
  rounds: number;
  /** Who said what to start the turn (`name: text` per triggering message), clipped; absent for digests. */
  triggerText?: string;
  /** What the turn sent, message after message, clipped; absent until something was sent. */
  replyText?: string;
}

export interface RetentionLimits {
  maxEvents: number;
  maxAgeHours: number;
}

/**
 * Persistence for monitor events, bounded by count and age. Appends are queued and committed
 * in batches; reads answer asynchronously and see every event appended before the call.
 */
export interface MonitorEventStore {
  /** Queues the event; its id is given at once and is greater than every id given before. */
  append(event: MonitorEvent): StoredMonitorEvent;
  /** Newest first. */
  list(query: MonitorEventQuery): Promise<StoredMonitorEvent[]>;
  /** Every event of one turn, oldest first. */
  turnEvents(replyId: string): Promise<StoredMonitorEvent[]>;
  /** Newest first. */
  turns(query: TurnQuery): Promise<TurnSummary[]>;
  flush(): Promise<void>;
  close(): Promise<void>;
}
