/** Every Redis key the cluster uses, under one prefix (`cluster.keyPrefix`). */
export class ClusterKeys {
  constructor(private readonly prefix: string) {}

  /** The set of instance ids that have joined (the dead stay until taken over). */
  get instances(): string {
    return `${this.prefix}:instances`;
  }

  /**
   * Set by the first instance to join and never deleted: when a heartbeat finds it missing,
   * Redis lost its data (restarted without persistence) and with it the list of instances.
   */
  get dataKept(): string {
    return `${this.prefix}:data-kept`;
  }

  /** An instance's heartbeat (its `InstanceInfo`), expiring unless renewed. */
  instance(id: string): string {
    return `${this.prefix}:instance:${id}`;
  }

  /** Which instance owns a session: runs its turns, in order. */
  session(sessionId: string): string {
    return `${this.prefix}:session:${sessionId}`;
  }

  /** Which instance holds the connection of a platform account. */
  account(adapterId: string, selfId: string): string {
    return `${this.prefix}:account:${adapterId}:${selfId}`;
  }

  /** Which instance dials a forward-ws adapter. */
  dial(adapterId: string): string {
    return `${this.prefix}:dial:${adapterId}`;
  }

  /** Messages, calls and answers for an instance, oldest first. */
  inbox(id: string): string {
    return `${this.prefix}:inbox:${id}`;
  }

  /** Envelopes an instance took from its inbox and has not finished handling, oldest first. */
  processing(id: string): string {
    return `${this.prefix}:processing:${id}`;
  }

  /** Triggers an instance accepted whose turn has not started: `sessionId\nmessageId` → time. */
  pending(id: string): string {
    return `${this.prefix}:pending:${id}`;
  }

  /** Held by the instance taking over a dead one's work, so only one does. */
  takeover(id: string): string {
    return `${this.prefix}:takeover:${id}`;
  }

  /**
   * The running turns (reply ids) of a dead instance already handed over by a take-over that
   * failed for others: the take-over tried again hands over only the rest.
   */
  handedOver(id: string): string {
    return `${this.prefix}:handed-over:${id}`;
  }

  /** Pub/sub channel of every instance's monitor events. */
  get events(): string {
    return `${this.prefix}:events`;
  }

  /** Pub/sub channel of config file edits. */
  get config(): string {
    return `${this.prefix}:config`;
  }

  /** Any other shared value (rate counters, token tallies), by name. */
  shared(name: string): string {
    return `${this.prefix}:shared:${name}`;
  }
}
