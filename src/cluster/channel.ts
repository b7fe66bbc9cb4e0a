import type { Redis } from "ioredis";
import type { Logger } from "../log/logger.ts";
import type { ClusterSeal } from "./seal.ts";

/** What travels on a channel: the sender's instance id and its message. */
interface Posted<T> {
  from: string;
  body: T;
}

/**
 * A Redis pub/sub channel among the instances: what one publishes reaches every other one
 * subscribed at that moment, and never comes back to itself. At most once, so only for news
 * an instance may miss (being down, or Redis being down, at the time). Every message is sealed
 * (signed with cluster.secret); one that is not is refused before it is read.
 */
export class ClusterChannel<T> {
  constructor(
    private readonly redis: Redis,
    /** A connection in subscriber mode (it can run no other command), shared by the channels. */
    private readonly subscriber: Redis,
    readonly name: string,
    private readonly id: string,
    private readonly seal: ClusterSeal,
    private readonly logger: Logger,
  ) {}

  /** Subscribes; `handler` then gets every message the other instances publish. */
  async listen(handler: (body: T, from: string) => void): Promise<void> {
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.name) return;
      const opened = this.seal.open(this.name, message);
      if (opened === undefined) return;
      let posted: Posted<T>;
      try {
        posted = JSON.parse(opened) as Posted<T>;
      } catch {
        this.logger.warn({ channel }, "ignored a cluster message that is not JSON");
        return;
      }
      if (typeof posted.from !== "string" || posted.from === this.id) return;
      try {
        handler(posted.body, posted.from);
      } catch (error) {
        this.logger.warn({ err: error, channel, from: posted.from }, "cluster message handler failed");
      }
    });
    await this.subscriber.subscribe(this.name);
  }

  /** Resolves with how many instances (this one included) received it. */
  async publish(body: T): Promise<number> {
    const posted: Posted<T> = { from: this.id, body };
    return this.redis.publish(this.name, this.seal.seal(this.name, JSON.stringify(posted)));
  }
}
