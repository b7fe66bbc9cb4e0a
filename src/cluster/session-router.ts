import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Coordinator } from "./coordinator.ts";
import type { Inbox } from "./inbox.ts";

export interface SessionRouterDeps {
  coordinator: Coordinator;
  inbox: Inbox;
  /** Takes a message into this instance's chat stage (stores it, then triggers, batching, turns). */
  ingest(message: ChatMessage): void;
  /** This instance's cached history of the session may be stale: another instance owned it meanwhile. */
  forgetCached(sessionId: string): void;
  /** Whether the session has turns queued or running here. */
  busy(sessionId: string): boolean;
  /** Whether the account answering the session is connected to this instance. */
  accountHere(adapterId: string, selfId: string): boolean;
  logger: Logger;
}

interface OwnedSession {
  adapterId: string;
  selfId: string;
  /** Unix ms of the newest message or turn. */
  activeAt: number;
}

/** A message handed on more often than this is taken in where it is (ownership kept moving). */
const MAX_HOPS = 3;
/** An owned session with nothing to do for this long is let go, so the map stays small. */
const IDLE_RELEASE_MS = 60_000;
/** Sooner when its account is connected to another instance: ownership follows the connection. */
const AWAY_RELEASE_MS = 5_000;
const RETRY_CLAIM_MS = 250;

/**
 * Keeps "one session, one instance": a session's messages are taken in and its turns run only
 * by the instance holding its lease (`session:<id>`), so per-session order and "one trigger,
 * one reply" hold across processes. A message for a session another instance owns is posted to
 * that instance's inbox. The lease is taken by the first instance that needs it, renewed with
 * the heartbeat while held, and let go when the session is idle or its account moved.
 */
export class SessionRouter {
  readonly #owned = new Map<string, OwnedSession>();
  /** Per session, the claim in flight; the session's later messages wait behind it, in order. */
  readonly #routing = new Map<string, Promise<void>>();

  constructor(private readonly deps: SessionRouterDeps) {}

  get ownedCount(): number {
    return this.#owned.size;
  }

  owns(sessionId: string): boolean {
    return this.#owned.has(sessionId);
  }

  /** Takes the message in here when this instance owns (or can take) its session, else hands it on. */
  route(message: ChatMessage, hops = 0): Promise<void> {
    const { sessionId } = message;
    const owned = this.#owned.get(sessionId);
    const before = this.#routing.get(sessionId);
    if (owned && !before) {
      owned.activeAt = Date.now();
      this.deps.ingest(message);
      return Promise.resolve();
    }
    const routed = (before ?? Promise.resolve())
      .then(() => this.#claimAndRoute(message, hops))
      .catch((error: unknown) => {
        this.deps.logger.error(
          { err: error, sessionId, messageId: message.messageId },
          "could not route a message",
        );
      })
      .finally(() => {
        if (this.#routing.get(sessionId) === routed) this.#routing.delete(sessionId);
      });
    this.#routing.set(sessionId, routed);
    return routed;
  }

  /**
   * Whether this instance may run a turn of the session now: it owns it, or takes it (a digest
   * may fire after the session was let go). False when another instance owns it.
   */
  async ensureOwned(origin: Pick<ChatMessage, "sessionId" | "adapterId" | "selfId">): Promise<boolean> {
    const owned = this.#owned.get(origin.sessionId);
    if (owned) {
      owned.activeAt = Date.now();
      return true;
    }
    let holder: string;
    try {
      holder = await this.claimLive(origin.sessionId);
    } catch (error) {
      // Redis is down: as in `route`, answering without the lease beats not answering.
      this.deps.logger.warn(
        { err: error, sessionId: origin.sessionId },
        "cannot reach Redis; running the turn here",
      );
      return true;
    }
    if (holder === this.deps.coordinator.id) this.#take(origin);
    return holder === this.deps.coordinator.id;
  }

  /**
   * Claims the session; resolves with the live instance holding it (this one if it was free).
   * A holder whose heartbeat expired keeps its lease a moment longer: wait for it to lapse
   * rather than post to an inbox nobody reads (its taker may have drained it already).
   */
  async claimLive(sessionId: string): Promise<string> {
    const { coordinator } = this.deps;
    const deadline = Date.now() + 2 * coordinator.leaseMs;
    for (;;) {
      const holder = await coordinator.claim(coordinator.keys.session(sessionId));
      if (holder === coordinator.id || Date.now() > deadline || (await coordinator.isAlive(holder)))
        return holder;
      await new Promise((resolve) => setTimeout(resolve, RETRY_CLAIM_MS));
    }
  }

  /** Heartbeat: renews the leases held, forgets the ones lost, lets go of idle sessions. */
  async beat(): Promise<void> {
    const { coordinator, logger } = this.deps;
    const lost = await coordinator.renew([...this.#owned.keys()].map((id) => coordinator.keys.session(id)));
    for (const key of lost) {
      const sessionId = key.slice(coordinator.keys.session("").length);
      this.#owned.delete(sessionId);
      logger.warn(
        { sessionId },
        "lost the lease of a session (not renewed in time: a pause or a Redis outage)",
      );
    }
    const now = Date.now();
    for (const [sessionId, owned] of this.#owned) {
      if (this.deps.busy(sessionId) || this.#routing.has(sessionId)) continue;
      const idle = now - owned.activeAt;
      const away = !this.deps.accountHere(owned.adapterId, owned.selfId);
      if (idle < IDLE_RELEASE_MS && !(away && idle >= AWAY_RELEASE_MS)) continue;
      this.#owned.delete(sessionId);
      await coordinator.release(coordinator.keys.session(sessionId));
    }
  }

  /** Lets go of every session (stopping). */
  async releaseAll(): Promise<void> {
    const { coordinator } = this.deps;
    for (const sessionId of this.#owned.keys())
      await coordinator.release(coordinator.keys.session(sessionId));
    this.#owned.clear();
  }

  async #claimAndRoute(message: ChatMessage, hops: number): Promise<void> {
    const { coordinator, logger } = this.deps;
    if (this.#owned.has(message.sessionId)) {
      this.deps.ingest(message);
      return;
    }
    let holder: string;
    try {
      holder = await this.claimLive(message.sessionId);
    } catch (error) {
      // Redis is down: answering without the lease beats dropping the message.
      logger.warn(
        { err: error, sessionId: message.sessionId },
        "cannot reach Redis; taking the message in here",
      );
      this.deps.ingest(message);
      return;
    }
    if (holder === coordinator.id) {
      this.#take(message);
      this.deps.ingest(message);
      return;
    }
    if (hops >= MAX_HOPS) {
      logger.warn(
        { sessionId: message.sessionId, holder },
        "a message kept moving between instances; taking it in here",
      );
      this.deps.ingest(message);
      return;
    }
    try {
      await this.deps.inbox.post(holder, { type: "message", message, hops: hops + 1 });
    } catch (error) {
      // Too large to hand over, or Redis failed just now: taken in here rather than lost.
      logger.warn(
        { err: error, sessionId: message.sessionId, holder },
        "could not hand a message over; taking it in here",
      );
      this.deps.ingest(message);
    }
  }

  #take(origin: Pick<ChatMessage, "sessionId" | "adapterId" | "selfId">): void {
    this.#owned.set(origin.sessionId, {
      adapterId: origin.adapterId,
      selfId: origin.selfId,
      activeAt: Date.now(),
    });
    this.deps.forgetCached(origin.sessionId);
  }
}
