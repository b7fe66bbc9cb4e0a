import type { MonitorEvent } from "./monitor.ts";

/** A monitor event as kept in storage; `id` increases in the order events were recorded. */
export interface StoredMonitorEvent extends MonitorEvent {
  id: number;
}

export interface MonitorEventQuery {
  replyId?: string;
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
}

export interface RetentionLimits {
  maxEvents: number;
  maxAgeHours: number;
}

/**
 * Persistence for monitor events, bounded by count and age. Appends are queued and committed
 * in batches; reads see every appended event.
 */
export interface MonitorEventStore {
  append(event: MonitorEvent): void;
  /** Newest first. */
  list(query: MonitorEventQuery): StoredMonitorEvent[];
  /** Every event of one turn, oldest first. */
  turnEvents(replyId: string): StoredMonitorEvent[];
  /** Newest first. */
  turns(query: TurnQuery): TurnSummary[];
  flush(): void;
  close(): void;
}
