import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { SendTarget } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import type { ClusterKeys } from "./keys.ts";

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

/** What instances send each other, through each one's inbox list in Redis. */
export type Envelope =
  | { type: "message"; message: ChatMessage; hops: number }
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
  | { type: "answer"; id: string; ok: false; error: string; notSent: boolean };

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
 * the caller's inbox. A dead instance's list stays in Redis until whoever takes over its work
 * drains it, so nothing posted to it is lost.
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
    private readonly logger: Logger,
  ) {}

  /** Reads envelopes until `stop`: messages and recovery work in order, calls concurrently. */
  start(handle: (envelope: Envelope) => Promise<void>): void {
    this.#running = true;
    this.#loop = (async () => {
      let failing = false;
      while (this.#running) {
        let popped: [string, string] | null;
        try {
          popped = await this.reader.blpop(this.keys.inbox(this.id), POLL_SECONDS);
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
        const envelope = popped && parseEnvelope(popped[1], this.logger);
        if (!envelope) continue;
        if (envelope.type === "answer") this.#answered(envelope);
        else if (envelope.type === "call")
          void handle(envelope).catch((error: unknown) => this.#failed(error));
        else await handle(envelope).catch((error: unknown) => this.#failed(error));
      }
    })();
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
    await this.redis.rpush(this.keys.inbox(to), text);
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
          };
    await this.post(call.from, envelope);
  }

  /** Takes every envelope left in a dead instance's inbox, oldest first. */
  async drain(of: string): Promise<Envelope[]> {
    const drained: Envelope[] = [];
    for (;;) {
      const text = await this.redis.lpop(this.keys.inbox(of));
      if (text === null) break;
      const envelope = parseEnvelope(text, this.logger);
      if (envelope) drained.push(envelope);
    }
    await this.redis.del(this.keys.inbox(of));
    return drained;
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
    else waiting.reject(Object.assign(new Error(answer.error), { notSent: answer.notSent }));
  }
}

function describe(call: AdapterCall): string {
  return call.op === "send" ? "a send" : `action ${call.action}`;
}

const TYPES = new Set(["message", "recover", "call", "answer"]);

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
