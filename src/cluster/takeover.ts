import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { TurnStore } from "../store/types.ts";
import type { Coordinator } from "./coordinator.ts";
import type { Envelope, Inbox, RecoveryWork } from "./inbox.ts";
import type { ClusterSeal } from "./seal.ts";
import type { SessionRouter } from "./session-router.ts";

/** How long the instance taking over a dead one's work keeps others from doing it too. */
const TAKEOVER_LOCK_MS = 60_000;
/** How many of a dead instance's sessions are handed over at the same time. */
const HANDOVERS_AT_ONCE = 4;
/** How long the record of turns already handed over outlives a take-over that failed. */
const HANDED_OVER_KEEP_MS = 10 * 60_000;

/**
 * Triggers this instance accepted whose turn has not started yet, kept in Redis
 * (`pending:<id>`), so that if the instance dies in a batching window another answers them.
 * A turn's start, a refusal or a trim takes them out. Each is sealed (its value is the field
 * signed with cluster.secret), so one written into Redis by anyone else is not answered.
 */
export class PendingTriggers {
  constructor(
    private readonly coordinator: Coordinator,
    private readonly seal: ClusterSeal,
    private readonly logger: Logger,
  ) {}

  accepted(message: Pick<ChatMessage, "sessionId" | "messageId">): void {
    const { redis, keys, id } = this.coordinator;
    const pending = field(message.sessionId, message.messageId);
    redis
      .hset(keys.pending(id), pending, this.seal.seal(keys.pending(id), pending))
      .catch((error: unknown) => this.#failed(error));
  }

  settled(sessionId: string, triggerIds: readonly string[]): void {
    if (triggerIds.length === 0) return;
    const { redis, keys, id } = this.coordinator;
    redis
      .hdel(keys.pending(id), ...triggerIds.map((messageId) => field(sessionId, messageId)))
      .catch((error: unknown) => this.#failed(error));
  }

  /** Puts back triggers taken from a dead instance whose session could not be handed over. */
  async restore(dead: string, bySession: ReadonlyMap<string, readonly string[]>): Promise<void> {
    const { redis, keys } = this.coordinator;
    const fields = [...bySession].flatMap(([sessionId, messageIds]) =>
      messageIds.flatMap((messageId) => {
        const pending = field(sessionId, messageId);
        return [pending, this.seal.seal(keys.pending(dead), pending)];
      }),
    );
    if (fields.length > 0) await redis.hset(keys.pending(dead), ...fields);
  }

  /** A dead instance's pending triggers by session; they are deleted as they are read. */
  async takeFrom(dead: string): Promise<Map<string, string[]>> {
    const { redis, keys } = this.coordinator;
    // Read and delete in one transaction: a restarted instance and its taker never both get them.
    const [read] = (await redis.multi().hgetall(keys.pending(dead)).del(keys.pending(dead)).exec()) ?? [];
    if (read?.[0]) throw read[0];
    const entries = (read?.[1] ?? {}) as Record<string, string>;
    const bySession = new Map<string, string[]>();
    for (const [key, sealed] of Object.entries(entries)) {
      if (this.seal.open(keys.pending(dead), sealed) !== key) continue;
      const [sessionId, messageId] = key.split("\n") as [string, string];
      bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), messageId]);
    }
    return bySession;
  }

  #failed(error: unknown): void {
    this.logger.warn(
      { err: error },
      "could not record a pending trigger in Redis; it is lost if this instance dies now",
    );
  }
}

function field(sessionId: string, messageId: string): string {
  return `${sessionId}\n${messageId}`;
}

export interface TakeoverDeps {
  coordinator: Coordinator;
  inbox: Inbox;
  router: SessionRouter;
  pending: PendingTriggers;
  turns: Pick<TurnStore, "running">;
  /** Runs recovery work for a session this instance now owns. */
  recover(work: RecoveryWork): Promise<void>;
  logger: Logger;
}

/**
 * Looks, at every heartbeat, for instances whose heartbeat expired and takes over what they
 * left — once, by whichever instance takes the `takeover:<id>` lock first: the envelopes in
 * their inbox are routed again, and per session the turns they left running and the triggers
 * they had accepted go to the session's new owner, which settles them as a restart would.
 */
export class Takeover {
  /** The dead instances whose work this one is taking over now. */
  readonly #taking = new Set<string>();
  /** The dead instances whose take-over failed and is tried again: one log line per failure spell. */
  readonly #failed = new Set<string>();

  constructor(private readonly deps: TakeoverDeps) {}

  /**
   * Starts taking over each dead instance whose lock this one wins. Not waited for: a take-over
   * can last longer than a lease (a database query or two per session), and the heartbeat
   * renewing this instance's own key and leases must go on meanwhile — stopped, it made this
   * instance look dead too, and the others took over its sessions in turn.
   */
  async beat(): Promise<void> {
    const { coordinator, logger } = this.deps;
    if (!coordinator.settled) return;
    for (const dead of await coordinator.dead()) {
      if (this.#taking.has(dead)) continue;
      const won = await coordinator.redis.set(
        coordinator.keys.takeover(dead),
        coordinator.id,
        "PX",
        TAKEOVER_LOCK_MS,
        "NX",
      );
      if (won !== "OK") continue;
      this.#taking.add(dead);
      this.#takeOver(dead)
        .then(async () => {
          this.#failed.delete(dead);
          await coordinator.forget(dead);
          await coordinator.redis.del(coordinator.keys.handedOver(dead));
        })
        .catch(async (error: unknown) => {
          if (!this.#failed.has(dead)) {
            logger.error(
              { err: error, instance: dead },
              "could not take over the work of an instance that stopped; trying again at every heartbeat",
            );
          }
          this.#failed.add(dead);
          // Let go of the lock at once, not after its minute: the database or Redis is usually
          // back within seconds, and the dead instance's triggers wait on this take-over.
          await coordinator.release(coordinator.keys.takeover(dead)).catch(() => undefined);
        })
        .finally(() => this.#taking.delete(dead));
    }
  }

  /** Sends recovery work to the session's owner, taking the session when nobody has it. */
  async dispatch(work: RecoveryWork): Promise<void> {
    const { coordinator, router, inbox } = this.deps;
    const owner = await router.claimLive({ sessionId: work.sessionId });
    if (owner !== coordinator.id) {
      await inbox.post(owner, { type: "recover", work });
      return;
    }
    await this.deps.recover(work);
  }

  /**
   * Hands a dead instance's work over. When a session cannot be handed over (the database
   * failing meanwhile), its triggers are put back and the take-over rejects, to be tried again:
   * its running turns are still in the database, and the turns handed over already (their reply
   * ids kept in Redis: a restarted instance of the same name has new ones) are not handed over
   * twice.
   */
  async #takeOver(dead: string): Promise<void> {
    const { coordinator, inbox, pending, logger } = this.deps;
    const handedOverKey = coordinator.keys.handedOver(dead);
    const started = Date.now();
    const envelopes = await inbox.drain(dead);
    for (const envelope of envelopes) await this.#redeliver(envelope);
    const handedOver = new Set(await coordinator.redis.smembers(handedOverKey));
    const running = (await this.deps.turns.running()).filter(
      (turn) => turn.instanceId === dead && !handedOver.has(turn.replyId),
    );
    const triggers = await pending.takeFrom(dead);
    const sessions = new Set([...running.map((turn) => turn.sessionId), ...triggers.keys()]);
    const failed = new Map<string, string[]>();
    // Sessions are independent of each other: a few are handed over at once (each costs a few
    // database queries; all at once would wait past the connection pool's timeout).
    const queue = [...sessions];
    const handOver = async (): Promise<void> => {
      for (let sessionId = queue.shift(); sessionId !== undefined; sessionId = queue.shift()) {
        const triggerIds = triggers.get(sessionId) ?? [];
        const replyIds = running.filter((turn) => turn.sessionId === sessionId).map((turn) => turn.replyId);
        try {
          await this.dispatch({ sessionId, replyIds, triggerIds, from: dead });
          if (replyIds.length > 0) {
            await coordinator.redis
              .multi()
              .sadd(handedOverKey, ...replyIds)
              .pexpire(handedOverKey, HANDED_OVER_KEEP_MS)
              .exec();
          }
        } catch (error) {
          failed.set(sessionId, triggerIds);
          logger.error(
            { err: error, instance: dead, sessionId },
            "could not hand over a session of an instance that stopped; its take-over is tried again",
          );
        }
      }
    };
    await Promise.all(Array.from({ length: HANDOVERS_AT_ONCE }, handOver));
    if (failed.size > 0) {
      await pending.restore(dead, failed);
      throw new Error(`${failed.size} of ${sessions.size} sessions could not be handed over`);
    }
    logger.warn(
      {
        instance: dead,
        envelopes: envelopes.length,
        turns: running.length,
        pendingTriggers: [...triggers.values()].reduce((sum, ids) => sum + ids.length, 0),
        sessions: sessions.size,
        ms: Date.now() - started,
      },
      "took over the work of an instance that stopped",
    );
  }

  async #redeliver(envelope: Envelope): Promise<void> {
    const { router, inbox } = this.deps;
    switch (envelope.type) {
      case "message":
        await router.route(envelope.message, envelope.hops);
        return;
      case "recall":
        await router.recall(envelope.recall, envelope.hops);
        return;
      case "recover":
        await this.dispatch(envelope.work);
        return;
      case "call":
        // It never ran: the caller may try again (or wait for the account) without fear of a duplicate.
        await inbox.answer(envelope, {
          error: Object.assign(new Error("the instance holding the account stopped"), { notSent: true }),
        });
        return;
      case "answer":
        return;
    }
  }
}
