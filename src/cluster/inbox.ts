import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { type SendTarget, wasRefused } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import type { ClusterKeys } from "./keys.ts";
import type { ClusterSeal } from "./seal.ts";

/** What one instance asks of the adapter connection another holds. */
export type AdapterCall =
  | { op: "send"; target: SendTarget; segments: Segment[] }
  | { op: "action"; action: string; params: Record<string, unknown> };

/** Work for the owner of a session that another instance took from a dead one. */
export interface RecoveryWork {
  sessionId: string;
  /** Turns the dead instance left running. */
  replyIds: string[];
  /** Triggers it accepted whose turn had not started. */
  triggerIds: string[];
  /** The dead instance. */
  from: string;
}

/** A message recalled (撤回) on the platform: its session's owner marks it and stops turns reading it. */
export interface Recall {
  sessionId: string;
  messageId: string;
}

/** What instances send each other, through each one's inbox list in Redis. */
export type Envelope =
  | { type: "message"; message: ChatMessage; hops: number }
  | { type: "recall"; recall: Recall; hops: number }
  | { type: "recover"; work: RecoveryWork }
  | {
      type: "call";
      id: string;
      from: string;
      adapterId: string;
      selfId: string;
      call: AdapterCall;
      timeoutMs: number;
    }
  | { type: "answer"; id: string; ok: true; value: unknown }
  | { type: "answer"; id: string; ok: false; error: string; notSent: boolean; refused?: boolean };

/** Envelopes beyond this are refused (a message with a huge inline picture, say): one clear error. */
const MAX_ENVELOPE_BYTES = 8 * 1024 * 1024;
/** How long one blocking read waits, so a stop is noticed within it. */
const POLL_SECONDS = 1;
/** A remote call gets this much longer than the platform action itself before it is given up. */
const CALL_MARGIN_MS = 2_000;

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The instances' mail: each reads its own list (`inbox:<id>`) in order on a connection of its
 * own (reads block), and writes into the others'. Remote adapter calls are answered through
 * the caller's inbox. Reading moves an envelope into the instance's `processing:<id>` list in
 * the same command (BLMOVE), and it is removed from there only once handled: an envelope Redis
 * hands to a reader that dies (a SIGKILL while the read is on the wire) is not lost. Whoever
 * takes over a dead instance's work drains both lists, processing first; an instance restarted
 * under the same id reads its own processing list again. Every envelope is sealed for the
 * inbox it is posted to (signed with cluster.secret); one that is not is refused before it is read.
 */
export class Inbox {
  readonly #waiting = new Map<string, Waiting>();
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    /** A connection of its own: its reads block. */
    private readonly reader: Redis,
    private readonly keys: ClusterKeys,
    private readonly id: string,
    private readonly seal: ClusterSeal,
    /** Whether this instance's leases are current, and how it learns which are after a pause. */
    private readonly leases: { readonly current: boolean; confirm(): Promise<void> },
    private readonly logger: Logger,
  ) {}

  /**
   * Reads envelopes until `stop`: messages and recovery work in order, calls concurrently.
   * Envelopes a previous run under this id left unfinished are read again first.
   */
  async start(handle: (envelope: Envelope) => Promise<void>): Promise<void> {
    const inbox = this.keys.inbox(this.id);
    const processing = this.keys.processing(this.id);
    while ((await this.redis.lmove(processing, inbox, "RIGHT", "LEFT")) !== null);
    this.#running = true;
    this.#loop = (async () => {
      let failing = false;
      while (this.#running) {
        let sealed: string | null;
        try {
          sealed = await this.reader.blmove(inbox, processing, "LEFT", "RIGHT", POLL_SECONDS);
          failing = false;
        } catch (error) {
          if (!this.#running) break;
          // The connection's own outage line says Redis is gone; this says what waits for it.
          if (!failing)
            this.logger.warn({ err: error }, "cluster inbox unreadable; retrying until Redis answers");
          failing = true;
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        if (sealed === null || !(await this.#stillMine(sealed))) continue;
        const envelope = this.#open(this.id, sealed);
        const done = () => this.#ack(sealed);
        if (!envelope) await done();
        else if (envelope.type === "answer") {
          this.#answered(envelope);
          await done();
        } else if (envelope.type === "call")
          void handle(envelope)
            .catch((error: unknown) => this.#failed(error))
            .then(done);
        else
          await handle(envelope)
            .catch((error: unknown) => this.#failed(error))
            .then(done);
      }
    })();
  }

  /**
   * Whether an envelope just read is still this instance's to handle. Read after a pause (the
   * answer to a read sent before it), it may have been taken over with the rest of this
   * instance's work meanwhile: the leases are confirmed first (the lost ones forgotten), then
   * the envelope is handled only if it is still in the processing list.
   */
  async #stillMine(sealed: string): Promise<boolean> {
    if (this.leases.current) return true;
    await this.leases.confirm();
    try {
      return (await this.redis.lpos(this.keys.processing(this.id), sealed)) !== null;
    } catch {
      return true; // Redis is gone: handled here rather than lost
    }
  }

  /** Removes a handled envelope from the processing list. */
  async #ack(sealed: string): Promise<void> {
    try {
      await this.redis.lrem(this.keys.processing(this.id), 1, sealed);
    } catch (error) {
      // Left there, it is handled again if this instance restarts or is taken over: logged.
      this.logger.warn({ err: error }, "could not mark a cluster envelope handled");
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
    for (const [id, waiting] of this.#waiting) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error("instance stopping"));
      this.#waiting.delete(id);
    }
  }

  /** Appends `envelope` to instance `to`'s inbox. */
  async post(to: string, envelope: Envelope): Promise<void> {
    const text = JSON.stringify(envelope);
    if (Buffer.byteLength(text) > MAX_ENVELOPE_BYTES) {
      throw new Error(
        `cluster: a ${envelope.type} for instance ${to} is larger than ${MAX_ENVELOPE_BYTES} bytes`,
      );
    }
    const inbox = this.keys.inbox(to);
    await this.redis.rpush(inbox, this.seal.seal(inbox, text));
  }

  /** Calls an adapter through the instance holding its connection; rejects on its error or after the timeout. */
  call(
    to: string,
    adapterId: string,
    selfId: string,
    call: AdapterCall,
    timeoutMs: number,
  ): Promise<unknown> {
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        // The call may have run: for a send this is "in doubt", never "not sent".
        reject(
          new Error(
            `instance ${to} did not answer ${describe(call)} within ${timeoutMs + CALL_MARGIN_MS} ms`,
          ),
        );
      }, timeoutMs + CALL_MARGIN_MS);
      this.#waiting.set(id, { resolve, reject, timer });
      this.post(to, { type: "call", id, from: this.id, adapterId, selfId, call, timeoutMs }).catch(
        (error: unknown) => {
          clearTimeout(timer);
          this.#waiting.delete(id);
          // Never posted: it certainly did not run.
          reject(
            Object.assign(new Error(`cluster: could not reach instance ${to}: ${String(error)}`), {
              notSent: true,
            }),
          );
        },
      );
    });
  }

  /** Answers a call another instance made. */
  async answer(
    call: Extract<Envelope, { type: "call" }>,
    result: { value: unknown } | { error: unknown },
  ): Promise<void> {
    const envelope: Envelope =
      "value" in result
        ? { type: "answer", id: call.id, ok: true, value: result.value ?? null }
        : {
            type: "answer",
            id: call.id,
            ok: false,
            error: result.error instanceof Error ? result.error.message : String(result.error),
            notSent: (result.error as { notSent?: unknown } | undefined)?.notSent === true,
            refused: wasRefused(result.error),
          };
    await this.post(call.from, envelope);
  }

  /**
   * Takes every envelope a dead instance left, oldest first: those it was handling when it
   * stopped, then those it never read. One transaction, so an instance restarting under the
   * same id and its taker never both get them.
   */
  async drain(of: string): Promise<Envelope[]> {
    const processing = this.keys.processing(of);
    const inbox = this.keys.inbox(of);
    const results = await this.redis
      .multi()
      .lrange(processing, 0, -1)
      .lrange(inbox, 0, -1)
      .del(processing, inbox)
      .exec();
    const lists = (results ?? []).slice(0, 2).map(([error, value]) => {
      if (error) throw error;
      return value as string[];
    });
    return lists.flat().flatMap((text) => this.#open(of, text) ?? []);
  }

  /** The envelope read from instance `of`'s inbox; undefined when refused or unreadable (logged). */
  #open(of: string, sealed: string): Envelope | undefined {
    const text = this.seal.open(this.keys.inbox(of), sealed);
    return text === undefined ? undefined : parseEnvelope(text, this.logger);
  }

  #failed(error: unknown): void {
    this.logger.error({ err: error }, "cluster inbox work failed");
  }

  #answered(answer: Extract<Envelope, { type: "answer" }>): void {
    const waiting = this.#waiting.get(answer.id);
    if (!waiting) return; // timed out already
    this.#waiting.delete(answer.id);
    clearTimeout(waiting.timer);
    if (answer.ok) waiting.resolve(answer.value);
    else {
      const error = Object.assign(new Error(answer.error), {
        notSent: answer.notSent,
        refused: answer.refused === true,
      });
      waiting.reject(error);
    }
  }
}

function describe(call: AdapterCall): string {
  return call.op === "send" ? "a send" : `action ${call.action}`;
}

const TYPES = new Set(["message", "recall", "recover", "call", "answer"]);

function parseEnvelope(text: string, logger: Logger): Envelope | undefined {
  try {
    const value = JSON.parse(text) as { type?: unknown };
    if (typeof value === "object" && value !== null && TYPES.has(value.type as string))
      return value as Envelope;
  } catch {
    // reported below
  }
  logger.error({ bytes: text.length }, "cluster inbox: dropped an unreadable envelope");
  return undefined;
}
