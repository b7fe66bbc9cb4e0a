import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { type FenceToken, isSessionFenced } from "../store/session-fence.ts";
import type { Coordinator } from "./coordinator.ts";
import type { Inbox, Recall } from "./inbox.ts";

export interface SessionRouterDeps {
  coordinator: Coordinator;
  inbox: Inbox;
  /** Takes a message into this instance's chat stage (stores it, then triggers, batching, turns). */
  ingest(message: ChatMessage): void;
  /** Marks a message recalled here: in the store, in batches waiting here, in turns running here. */
  recall(recall: Recall): void;
  /** This instance's cached history of the session may be stale: another instance owned it meanwhile. */
  forgetCached(sessionId: string): void;
  /** Whether the session has turns queued or running here. */
  busy(sessionId: string): boolean;
  /** Whether the account answering the session is connected to this instance. */
  accountHere(adapterId: string, selfId: string): boolean;
  /** Records a new lease token in the store before anything is done under it (TurnStore.advanceFence). */
  advanceFence(sessionId: string, fence: FenceToken): Promise<void>;
  logger: Logger;
}

/** Where work for a session comes from: a message's account, unknown for recovery work. */
type WorkOrigin = Pick<ChatMessage, "sessionId"> & Partial<Pick<ChatMessage, "adapterId" | "selfId">>;

interface OwnedSession {
  /** The account answering the session, when known. */
  adapterId?: string;
  selfId?: string;
  /** Unix ms of the newest message or turn. */
  activeAt: number;
  /** The lease's fencing token, which the session's turns carry; undefined when the store held a newer one (Redis's clock went back). */
  fence: FenceToken | undefined;
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
  /** The lease confirmation in flight after a pause (see confirmLeases). */
  #confirming: Promise<void> | undefined;
  /** Per session, the lease claim in flight (for a message, a turn or recovery work). */
  readonly #claiming = new Map<string, Promise<string>>();

  constructor(private readonly deps: SessionRouterDeps) {}

  get ownedCount(): number {
    return this.#owned.size;
  }

  owns(sessionId: string): boolean {
    return this.#owned.has(sessionId);
  }

  /** The fencing token of the session's lease while this instance holds it. */
  fenceOf(sessionId: string): FenceToken | undefined {
    return this.#owned.get(sessionId)?.fence;
  }

  /** Takes the message in here when this instance owns (or can take) its session, else hands it on. */
  route(message: ChatMessage, hops = 0): Promise<void> {
    const { sessionId } = message;
    const owned = this.#owned.get(sessionId);
    const before = this.#routing.get(sessionId);
    // After a pause the lease may be another's: the claim below looks first (#claimAndRoute).
    if (owned && !before && this.deps.coordinator.leasesCurrent) {
      owned.activeAt = Date.now();
      this.deps.ingest(message);
      return Promise.resolve();
    }
    return this.#inOrder(sessionId, message.messageId, "could not route a message", () =>
      this.#claimAndRoute(message, hops),
    );
  }

  /**
   * Takes a recall where the session's turns run: here when this instance owns the session or
   * nobody does (the store's mark is what the next owner reads), else in the owner's inbox.
   * After the session's messages already on their way, so it never overtakes what it recalls.
   */
  recall(recall: Recall, hops = 0): Promise<void> {
    const { sessionId } = recall;
    if (this.#owned.has(sessionId) && !this.#routing.has(sessionId) && this.deps.coordinator.leasesCurrent) {
      this.deps.recall(recall);
      return Promise.resolve();
    }
    return this.#inOrder(sessionId, recall.messageId, "could not route a recall", () =>
      this.#routeRecall(recall, hops),
    );
  }

  /** Runs `work` after the session's routing in flight, and lets the session's next routing wait for it. */
  #inOrder(sessionId: string, messageId: string, failure: string, work: () => Promise<void>): Promise<void> {
    const routed = (this.#routing.get(sessionId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error, sessionId, messageId }, failure);
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
    await this.confirmLeases();
    const owned = this.#owned.get(origin.sessionId);
    if (owned) {
      owned.activeAt = Date.now();
      return true;
    }
    let holder: string;
    try {
      holder = await this.#claim(origin);
    } catch (error) {
      // Redis is down: as in `route`, answering without the lease beats not answering.
      this.deps.logger.warn(
        { err: error, sessionId: origin.sessionId },
        "cannot reach Redis; running the turn here",
      );
      return true;
    }
    return holder === this.deps.coordinator.id;
  }

  /**
   * Claims the session for work that came from `origin` (a message, recovery work); resolves
   * with the live instance holding it: this one when it was free (then owned here, its new
   * lease token recorded in the store first), or the holder when that one beats on time. A
   * holder whose heartbeat is late (paused, dying) is given nothing new: wait for its lease to
   * lapse and take the session, for at most two leases; after that the message goes to its
   * inbox all the same, where whoever takes its work over finds it.
   */
  async #claim(origin: WorkOrigin): Promise<string> {
    const { coordinator } = this.deps;
    // One claim of a session at a time here: a second would take a second token.
    const inFlight = this.#claiming.get(origin.sessionId);
    if (inFlight) {
      await inFlight.catch(() => undefined);
      if (this.#owned.has(origin.sessionId)) return coordinator.id;
    }
    const claiming = this.#claimOnce(origin);
    this.#claiming.set(origin.sessionId, claiming);
    try {
      return await claiming;
    } finally {
      if (this.#claiming.get(origin.sessionId) === claiming) this.#claiming.delete(origin.sessionId);
    }
  }

  async #claimOnce(origin: WorkOrigin): Promise<string> {
    const { coordinator } = this.deps;
    const deadline = Date.now() + 2 * coordinator.leaseMs;
    for (;;) {
      const { holder, fence } = await coordinator.claimSession(coordinator.keys.session(origin.sessionId));
      if (holder === coordinator.id) {
        // A claim overtaken by a newer holder's (this instance paused after making it) is
        // made again: the lease is that holder's now, or free again with a newer token.
        if (await this.#take(origin, fence, Date.now() > deadline)) return holder;
      } else if (Date.now() > deadline || (await coordinator.beatsOnTime(holder))) return holder;
      await new Promise((resolve) => setTimeout(resolve, RETRY_CLAIM_MS));
    }
  }

  /** Claims the session unless this instance owns it already (see `#claim`). */
  async claimLive(origin: WorkOrigin): Promise<string> {
    await this.confirmLeases();
    if (this.#owned.has(origin.sessionId)) return this.deps.coordinator.id;
    return this.#claim(origin);
  }

  /**
   * After a pause (or a Redis outage), learns which leases are still held before acting on any:
   * renews them and forgets the lost ones (Coordinator.confirmLeases). At once when they are
   * current. While Redis cannot be reached, what is owned stays owned (answering beats silence).
   */
  async confirmLeases(): Promise<void> {
    if (this.deps.coordinator.leasesCurrent) return;
    this.#confirming ??= this.deps.coordinator
      .confirmLeases(() => this.#renew())
      .catch(() => undefined) // the heartbeat logs the outage
      .finally(() => {
        this.#confirming = undefined;
      });
    await this.#confirming;
  }

  /** Heartbeat: renews the leases held, forgets the ones lost, lets go of idle sessions. */
  async beat(): Promise<void> {
    const { coordinator } = this.deps;
    await this.#renew();
    const now = Date.now();
    for (const [sessionId, owned] of this.#owned) {
      if (this.deps.busy(sessionId) || this.#routing.has(sessionId)) continue;
      const idle = now - owned.activeAt;
      const away =
        owned.adapterId !== undefined &&
        owned.selfId !== undefined &&
        !this.deps.accountHere(owned.adapterId, owned.selfId);
      if (idle < IDLE_RELEASE_MS && !(away && idle >= AWAY_RELEASE_MS)) continue;
      this.#owned.delete(sessionId);
      await coordinator.release(coordinator.keys.session(sessionId));
    }
  }

  /** Renews the leases held and forgets the ones lost (one line for them all). */
  async #renew(): Promise<void> {
    const { coordinator, logger } = this.deps;
    const lost = await coordinator.renew([...this.#owned.keys()].map((id) => coordinator.keys.session(id)));
    const lostSessions = lost.map((key) => key.slice(coordinator.keys.session("").length));
    for (const sessionId of lostSessions) this.#owned.delete(sessionId);
    if (lostSessions.length > 0) {
      logger.warn(
        { sessionIds: lostSessions.slice(0, 20), count: lostSessions.length },
        "lost the lease of sessions (not renewed in time: a pause or a Redis outage); their turns here stop before their next send",
      );
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
    let holder: string;
    try {
      holder = await this.claimLive(message);
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
      this.#touch(message.sessionId);
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

  async #routeRecall(recall: Recall, hops: number): Promise<void> {
    const { coordinator, logger } = this.deps;
    let holder: string | null;
    try {
      await this.confirmLeases();
      holder = this.#owned.has(recall.sessionId)
        ? coordinator.id
        : await coordinator.holder(coordinator.keys.session(recall.sessionId));
    } catch {
      holder = null; // Redis is down: marked here, where the store keeps it for every instance
    }
    if (holder === null || holder === coordinator.id || hops >= MAX_HOPS) {
      this.deps.recall(recall);
      return;
    }
    try {
      await this.deps.inbox.post(holder, { type: "recall", recall, hops: hops + 1 });
    } catch (error) {
      logger.warn(
        { err: error, sessionId: recall.sessionId, holder },
        "could not hand a recall to the session's owner; marking it here",
      );
      this.deps.recall(recall);
    }
  }

  #touch(sessionId: string): void {
    const owned = this.#owned.get(sessionId);
    if (owned) owned.activeAt = Date.now();
  }

  /**
   * Owns the session from now on, under lease token `fence`, once the store has it: from then
   * on it refuses the steps of turns still running under an older token (a paused instance).
   * Resolves false, owning nothing, when the store holds a newer token already: the claim is
   * out of date (this instance was paused between claiming and recording it). With `lastTry`
   * the session is owned all the same, its turns unfenced (Redis's clock went back).
   */
  async #take(origin: WorkOrigin, fence: FenceToken | undefined, lastTry: boolean): Promise<boolean> {
    const { sessionId } = origin;
    const held = this.#owned.get(sessionId);
    if (held) {
      held.activeAt = Date.now();
      return true;
    }
    let recorded = fence;
    if (fence !== undefined) {
      try {
        await this.deps.advanceFence(sessionId, fence);
      } catch (error) {
        if (!isSessionFenced(error)) {
          // The database did not answer (it is down, or this instance was paused while it
          // waited): the turns carry the token all the same, and each of their steps is checked
          // against the newest one in the statement that writes it.
          this.deps.logger.warn(
            { err: error, sessionId },
            "could not record the session's lease token now; its turns' steps are checked against it as they are written",
          );
        } else if (!lastTry) return false;
        else {
          this.deps.logger.warn(
            { err: error, sessionId },
            "the store holds a newer lease token than Redis gives out; the session's turns here run unfenced",
          );
          recorded = undefined;
        }
      }
    }
    this.#owned.set(sessionId, {
      adapterId: origin.adapterId,
      selfId: origin.selfId,
      activeAt: Date.now(),
      fence: recorded,
    });
    this.deps.forgetCached(sessionId);
    return true;
  }
}
