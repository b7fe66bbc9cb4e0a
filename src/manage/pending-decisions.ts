import { randomBytes } from "node:crypto";
import type { JoinRequest } from "../adapters/types.ts";
import type { GroupPlace } from "./group-standing.ts";

/** A kick asked for, waiting for its requester's "确认" (one kick per confirmation). */
export interface PendingKick {
  kind: "kick";
  id: string;
  sessionId: string;
  place: GroupPlace;
  requesterId: string;
  requesterName: string;
  targetId: string;
  targetName: string;
  reason: string;
  replyId: string;
}

/** A join request announced for review, waiting for an admin's yes or no. */
export interface PendingJoin {
  kind: "join";
  id: string;
  sessionId: string;
  place: GroupPlace;
  request: JoinRequest;
  applicant: string;
  /** The bot's announcement: an admin answers by replying to it. */
  announcementId?: string;
}

export type PendingDecision = PendingKick | PendingJoin;

/** Decisions waiting at most per group, so a flood of join requests cannot grow without bound. */
const MAX_PENDING_PER_SESSION = 50;

/**
 * Decisions waiting for a person (in memory: a restart forgets them, and a kick is never done
 * unconfirmed). Each is taken at most once: a confirmation acts once, a second finds nothing.
 */
export class PendingDecisions {
  readonly #waiting = new Map<string, { decision: PendingDecision; timer: NodeJS.Timeout }>();

  /** Adds a decision that lapses after `ttlMs` (calling `lapsed`); the oldest of a full session is dropped. */
  add<D extends PendingDecision>(decision: Omit<D, "id">, ttlMs: number, lapsed: (decision: D) => void): D {
    const inSession = this.all().filter((waiting) => waiting.sessionId === decision.sessionId);
    if (inSession.length >= MAX_PENDING_PER_SESSION) this.take(inSession[0]!.id);
    const full = { ...decision, id: this.newId() } as D;
    const timer = setTimeout(() => {
      if (this.take(full.id)) lapsed(full);
    }, ttlMs);
    timer.unref();
    this.#waiting.set(full.id, { decision: full, timer });
    return full;
  }

  /** Removes and returns the decision, or undefined when it was taken or lapsed already. */
  take(id: string): PendingDecision | undefined {
    const waiting = this.#waiting.get(id.trim().toLowerCase());
    if (!waiting) return undefined;
    clearTimeout(waiting.timer);
    this.#waiting.delete(waiting.decision.id);
    return waiting.decision;
  }

  get(id: string): PendingDecision | undefined {
    return this.#waiting.get(id.trim().toLowerCase())?.decision;
  }

  find(predicate: (decision: PendingDecision) => boolean): PendingDecision | undefined {
    return this.all().find(predicate);
  }

  inSession(sessionId: string): boolean {
    return this.all().some((decision) => decision.sessionId === sessionId);
  }

  /** Forgets every decision (shutdown). */
  clear(): void {
    for (const { timer } of this.#waiting.values()) clearTimeout(timer);
    this.#waiting.clear();
  }

  private all(): PendingDecision[] {
    return [...this.#waiting.values()].map((waiting) => waiting.decision);
  }

  private newId(): string {
    for (;;) {
      const id = randomBytes(3).toString("hex");
      if (!this.#waiting.has(id)) return id;
    }
  }
}
