import type { AccessSettings } from "../chat/config.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { ChatHistory } from "../store/types.ts";

/** What every background learner reads its chats and asks its model with. */
export interface LearnerDeps {
  history: ChatHistory;
  /**
   * Whether a message was recalled (撤回): never learned from. Asked of this instance's record
   * of recalls, which knows one at once; the stored mark may still be on its way.
   */
  recalled: (message: ChatMessage) => boolean;
  /** The current client (replaced on a config reload). */
  llm: () => { generate(request: LlmRequest): Promise<LlmResult> };
  access: () => AccessSettings;
  prompts: () => PromptTemplates;
  clock: () => ZonedClock;
  botName: () => string;
  monitor: Monitor;
  logger: Logger;
}

/** Longest a learning pass waits for its model. */
const LEARN_TIMEOUT_MS = 120_000;

/**
 * Background passes over chats, one at a time: every `every()` messages a chat is noticed with,
 * the chat waits for a pass; passes run in turn, never two at once, each given the chat's
 * session id and an abort signal that `stop()` fires. A failed pass is reported with `failed`.
 */
class PassQueue {
  /** Messages noticed per chat since its last pass was queued. */
  private readonly counts = new Map<string, number>();
  private readonly waiting = new Set<string>();
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly pass: (sessionId: string, signal: AbortSignal) => Promise<void>,
    private readonly failed: (error: unknown, sessionId: string) => void,
  ) {}

  /** The signal a pass is aborted with on `stop()`. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** One message more in the chat; queues a pass once `every` have been noticed there. */
  noticed(sessionId: string, every: number): void {
    if (this.stopping.signal.aborted) return;
    const count = (this.counts.get(sessionId) ?? 0) + 1;
    if (count < every) {
      this.counts.set(sessionId, count);
      return;
    }
    this.counts.delete(sessionId);
    this.waiting.add(sessionId);
    this.next();
  }

  /** Stops: a pass in flight is aborted and awaited. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.waiting.clear();
    await this.running;
  }

  /** Settles once no pass is running or waiting (tests and benches). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private next(): void {
    if (this.running || this.stopping.signal.aborted) return;
    const sessionId = this.waiting.values().next().value;
    if (sessionId === undefined) return;
    this.waiting.delete(sessionId);
    this.running = this.pass(sessionId, this.stopping.signal)
      .catch((error: unknown) => this.failed(error, sessionId))
      .finally(() => {
        this.running = undefined;
        this.next();
      });
  }
}

/**
 * A learner that reads chats in the background: each message a member sent counts towards its
 * chat's next pass, which runs once `passEvery` such messages have been noticed there, one pass
 * at a time across chats. A failed pass is one warning, `failure`, and the next one runs.
 */
export abstract class BackgroundLearner {
  private readonly passes: PassQueue;
  private readonly llm: LearnerDeps["llm"];

  constructor(deps: Pick<LearnerDeps, "llm" | "logger">, failure: string) {
    this.llm = deps.llm;
    this.passes = new PassQueue(
      (sessionId, signal) => this.pass(sessionId, signal),
      (error, sessionId) => deps.logger.warn({ err: error, sessionId }, failure),
    );
  }

  /** A message a member sent in an allowed chat (not a command): counts towards the next pass. */
  noticed(message: ChatMessage): void {
    if (message.fromSelf) return;
    const every = this.passEvery(message);
    if (every !== undefined) this.passes.noticed(message.sessionId, every);
  }

  /** Stops learning: a pass in flight is aborted and awaited. */
  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** Settles once no pass is running or waiting (tests and benches). */
  idle(): Promise<void> {
    return this.passes.idle();
  }

  /** Every how many noticed messages the chat of `message` gets a pass; undefined: it does not count now. */
  protected abstract passEvery(message: ChatMessage): number | undefined;

  /** Reads one chat; `stopping` fires on `stop()`. */
  protected abstract pass(sessionId: string, stopping: AbortSignal): Promise<void>;

  /** Asks the model of a pass over `sessionId`: `system` says what to learn, `request` gives the chat. */
  protected ask(
    pass: { task: string; sessionId: string; stopping: AbortSignal },
    system: string,
    request: string,
  ): Promise<LlmResult> {
    return this.llm().generate({
      task: pass.task,
      messages: [
        { role: "system", content: system },
        { role: "user", content: request },
      ],
      temperature: 0,
      signal: AbortSignal.any([pass.stopping, AbortSignal.timeout(LEARN_TIMEOUT_MS)]),
      sessionId: pass.sessionId,
    });
  }
}
