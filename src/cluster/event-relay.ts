import type { Logger } from "../log/logger.ts";
import type { StoredMonitorEvent } from "../monitor/event-store.ts";
import { Fanout } from "../monitor/monitor.ts";
import type { LiveTimeline } from "../monitor/timeline.ts";
import type { ClusterChannel } from "./channel.ts";

/** An event of another instance's timeline, as this instance's console shows it live. */
export type InstanceEvent = StoredMonitorEvent & { instance: string };

/** A console does not wait longer than this for its "watching" to reach Redis (a hung server). */
const WATCH_WAIT_MS = 1_000;

/**
 * What travels on the events channel: an event one instance stored, or an instance saying its
 * console is following (so the others should send their events).
 */
export type EventNews = { event: StoredMonitorEvent } | { watching: true };

/**
 * The console's live timeline across the cluster. Each instance publishes the events its
 * timeline stores (with their ids from the shared database, so a page merges them with
 * stored ones by id); each delivers the others' to its console, tagged with their instance.
 * They never enter this instance's MonitorHub: the timeline there would store them twice.
 *
 * Events carry whole prompts, so they are published only while another instance's console
 * follows: such an instance says so when a console opens and at every heartbeat after, and
 * the others publish until they have not heard it for `watchLapseMs`.
 */
export class EventRelay {
  readonly #remote: Fanout<InstanceEvent>;
  #stopSharing = () => {};
  /** Consoles following this instance's live timeline. */
  #followers = 0;
  /** Until when another instance's console is known to follow. */
  #othersWatchUntil = 0;
  /** Set while publishing fails, so a Redis outage is one log line, not one per event. */
  #failing = false;

  constructor(
    private readonly channel: ClusterChannel<EventNews>,
    /** How long another instance's "watching" lasts unless said again (a few heartbeats). */
    private readonly watchLapseMs: number,
    private readonly logger: Logger,
  ) {
    this.#remote = new Fanout((error) => logger.warn({ err: error }, "live event follower failed"));
  }

  /** Starts receiving the other instances' events and news. */
  start(): Promise<void> {
    return this.channel.listen((news, from) => {
      if ("watching" in news) this.#othersWatchUntil = Date.now() + this.watchLapseMs;
      else if ("event" in news) this.#remote.publish({ ...news.event, instance: from });
    });
  }

  /**
   * Publishes every event `local` stores from now on to the other instances while one of their
   * consoles follows; returns what this instance's console follows: `local`'s events and the
   * other instances' (with `instance`).
   */
  share(local: LiveTimeline): LiveTimeline {
    this.#stopSharing();
    this.#stopSharing = local.follow((event) => {
      if (Date.now() < this.#othersWatchUntil) this.#publish({ event });
    });
    return {
      follow: (listener) => {
        const stopLocal = local.follow(listener);
        const stopRemote = this.#remote.add(listener);
        this.#followers++;
        return () => {
          stopLocal();
          stopRemote();
          this.#followers--;
        };
      },
      // Other instances' events may start late then; this instance's own start at once.
      watch: () => withinMs(this.#announce(), WATCH_WAIT_MS),
    };
  }

  /** Heartbeat: while a console follows here, the other instances hear it again. */
  beat(): Promise<void> {
    return this.#followers > 0 ? this.#announce() : Promise.resolve();
  }

  /** Stops publishing (shutdown). */
  stop(): void {
    this.#stopSharing();
  }

  #announce(): Promise<void> {
    return this.#publish({ watching: true });
  }

  /** Never rejects: a failure is logged (once per outage) and the news is gone. */
  #publish(news: EventNews): Promise<void> {
    return this.channel.publish(news).then(
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

/** Resolves when `work` does, or after `ms` at the latest. */
function withinMs(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
