import type { Logger } from "../log/logger.ts";
import type { StoredMonitorEvent } from "../monitor/event-store.ts";
import { Fanout } from "../monitor/monitor.ts";
import type { Timeline } from "../monitor/timeline.ts";
import type { ClusterChannel } from "./channel.ts";

/** An event of another instance's timeline, as this instance's console shows it live. */
export type InstanceEvent = StoredMonitorEvent & { instance: string };

/** What the console follows live: `Timeline.follow`. */
export type LiveTimeline = Pick<Timeline, "follow">;

/**
 * The console's live timeline across the cluster. Each instance publishes the events its
 * timeline stores (with their ids from the shared database, so a page merges them with
 * stored ones by id); each delivers the others' to its console, tagged with their instance.
 * They never enter this instance's MonitorHub: the timeline there would store them twice.
 */
export class EventRelay {
  readonly #remote: Fanout<InstanceEvent>;
  #stopSharing = () => {};
  /** Set while publishing fails, so a Redis outage is one log line, not one per event. */
  #failing = false;

  constructor(
    private readonly channel: ClusterChannel<StoredMonitorEvent>,
    private readonly logger: Logger,
  ) {
    this.#remote = new Fanout((error) => logger.warn({ err: error }, "live event follower failed"));
  }

  /** Starts receiving the other instances' events. */
  start(): Promise<void> {
    return this.channel.listen((event, from) => this.#remote.publish({ ...event, instance: from }));
  }

  /**
   * Publishes every event `local` stores from now on to the other instances; returns what the
   * console follows: `local`'s events and the other instances' (with `instance`).
   */
  share(local: LiveTimeline): LiveTimeline {
    this.#stopSharing();
    this.#stopSharing = local.follow((event) => this.#publish(event));
    return {
      follow: (listener) => {
        const stopLocal = local.follow(listener);
        const stopRemote = this.#remote.add(listener);
        return () => {
          stopLocal();
          stopRemote();
        };
      },
    };
  }

  /** Stops publishing (shutdown). */
  stop(): void {
    this.#stopSharing();
  }

  #publish(event: StoredMonitorEvent): void {
    this.channel.publish(event).then(
      () => {
        this.#failing = false;
      },
      (error: unknown) => {
        if (!this.#failing) {
          this.logger.warn({ err: error }, "could not publish live events to the other instances");
        }
        this.#failing = true;
      },
    );
  }
}
