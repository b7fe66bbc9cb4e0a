import type { MonitorEventStore, StoredMonitorEvent } from "./event-store.ts";
import { Fanout, type MonitorHub } from "./monitor.ts";
import { isTimelineEvent } from "./timeline-filter.ts";

/** What the console's live stream follows: this instance's timeline, in a cluster every instance's. */
export interface LiveTimeline {
  follow(listener: (event: StoredMonitorEvent) => void): () => void;
  /**
   * In a cluster: resolves once the other instances send their events here, which they do only
   * while some console follows (never rejects). Called before a console starts following.
   */
  watch?(): Promise<void>;
}

/**
 * The console's timeline: the monitor events worth keeping (isTimelineEvent), stored, then
 * handed to live followers with the id they were stored under. Ids, not times, order events
 * (a turn emits several in one millisecond), so a page that loaded a turn and follows it live
 * merges both by id and shows each event once, in the order it was emitted.
 */
export class Timeline {
  readonly #followers: Fanout<StoredMonitorEvent>;
  readonly #stopRecording: () => void;

  constructor(hub: MonitorHub, store: MonitorEventStore, onListenerError: (error: unknown) => void) {
    this.#followers = new Fanout(onListenerError);
    this.#stopRecording = hub.subscribe((event) => {
      if (!isTimelineEvent(event)) return;
      const stored = store.append(event);
      this.#followers.publish(stored);
    });
  }

  /** Calls `listener` with every event stored from now on; returns its disposer. */
  follow(listener: (event: StoredMonitorEvent) => void): () => void {
    return this.#followers.add(listener);
  }

  /** Stops recording (shutdown). */
  stop(): void {
    this.#stopRecording();
  }
}
