import { randomUUID } from "node:crypto";
import type { Batch } from "../chat/batch.ts";
import type { RecalledMessages } from "../chat/recalls.ts";
import type { TurnRequest } from "../chat/session-runner.ts";
import { type TurnLimits, turnUser } from "../chat/turn-limits.ts";
import { turnStartedData } from "../chat/turn-started.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { ReplyStage } from "../reply/reply-stage.ts";
import { type FenceToken, isSessionFenced, type SessionFenced } from "../store/session-fence.ts";
import type { MessageStore, TurnStore } from "../store/types.ts";
import { HistoryWindows } from "./history-window.ts";
import { runPlanner } from "./planner-loop.ts";
import type { AgentSettings } from "./settings.ts";
import { readTranscript } from "./transcript-turn.ts";
import { TurnContext, type TurnContextDeps, type TurnPictureView } from "./turn-context.ts";
import { TurnJournal } from "./turn-journal.ts";
import { failureReason, TurnFailure, type TurnOutcome, TurnStopped } from "./turn-outcome.ts";
import type { TurnPlugins } from "./turn-plugins.ts";

export interface TurnRunnerDeps {
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  messages: MessageStore;
  turns: TurnStore;
  /** In a cluster, this instance's id: recorded on each turn, so another can take it over if this one dies. */
  instanceId?: string;
  /** A turn's start is committed (or could not be): its triggers are taken, no longer pending. */
  triggersTaken?: (batch: Batch) => void;
  /**
   * In a cluster, the lease token of the session while this instance holds it: a turn carries
   * the one it started with to every durable step (its start, each send), and the store refuses
   * them once another instance took the session with a newer one (a pause; see session-fence.ts).
   */
  fenceOf?: (sessionId: string) => FenceToken | undefined;
  /** A turn the store refused that way: its triggers and record go to the session's current owner. */
  handOver?: (work: { sessionId: string; replyIds: string[]; triggerIds: string[] }) => void;
  /** The quote block (quote resolution) for a realtime turn's quoting message; never rejects. */
  quotes: TurnContextDeps["quotes"];
  names: TurnContextDeps["names"];
  /** The settings in force in the batch's chat (its per-group settings applied). */
  settings: (batch: Batch) => AgentSettings;
  /** Plugin tools, enrichers and hooks. */
  plugins: TurnPlugins;
  /**
   * Describes the pictures a turn shows its models (within the caps; nothing without a vision
   * model), and fetches the new messages' pictures for a model that accepts images.
   */
  picturesForTurn(turn: { replyId: string; origin: ChatMessage; signal: AbortSignal }): TurnPictureView;
  /** Writes and sends what the planner decided to say (replies, digests, summaries). */
  replyStage: ReplyStage;
  /** Long-term memory: recalled into each turn's prompts, written by `remember`, searched by `recall`. */
  memory: MemoryService;
  expressions: TurnContextDeps["expressions"];
  /** The knowledge base's passages for a turn's new messages (its prompts' knowledge section). */
  knowledge: TurnContextDeps["knowledge"];
  /** The daily token budgets, checked again before each model call of a turn after its first. */
  budgets: Pick<TurnLimits, "crossed">;
  /** Messages recalled while their batch waited: a turn leaves them out. */
  recalled: RecalledMessages;
  /**
   * The governor's send side for a turn nobody asked for (`batch.unasked`): why its reply text
   * must not be sent, or undefined once it may go.
   */
  clearUnasked?: (
    batch: Batch,
    replyId: string,
    text: string,
    signal: AbortSignal,
  ) => Promise<string | undefined>;
  monitor: Monitor;
  logger: Logger;
}

/**
 * Runs agent turns: a realtime batch goes through the planner loop (whose reply plans the
 * reply stage writes and sends), a digest or summary batch is read as a transcript. Each
 * turn is journalled, bounded by the turn timeout and ends with one outcome.
 */
export class TurnRunner {
  private readonly running = new Set<AbortController>();
  /** The lease token and abort of each running turn that carries one, by reply id. */
  private readonly fenced = new Map<string, { fence: FenceToken; abort: AbortController }>();
  private readonly historyWindows = new HistoryWindows();
  /** Each running turn and its abort, so a recall reaches the turns reading the message. */
  private readonly turns = new Map<TurnContext, AbortController>();

  constructor(private readonly deps: TurnRunnerDeps) {}

  /** Fails every running turn at once (shutdown): each ends cleanly with this reason. */
  abortAll(reason: string): void {
    for (const controller of this.running) controller.abort(new TurnFailure(reason));
  }

  /** The lease token turn `replyId` runs under, for its sends (SendJournal). */
  fenceOf(replyId: string): FenceToken | undefined {
    return this.fenced.get(replyId)?.fence;
  }

  /** The store refused a step of turn `replyId` (SessionFenced): it stops at once. */
  fencedOut(replyId: string, refusal: SessionFenced): void {
    this.fenced.get(replyId)?.abort.abort(refusal);
  }

  /**
   * A message was recalled: running turns of its session leave it out, and one left with
   * nothing to answer stops before it sends anything.
   */
  recalled(sessionId: string, messageId: string): void {
    for (const [turn, abort] of this.turns) {
      if (turn.batch.sessionId === sessionId && turn.recalled(messageId)) {
        abort.abort(new TurnStopped(`the message that started the turn was recalled (msg_id ${messageId})`));
      }
    }
  }

  /**
   * Runs one turn (`request.rerunOf`: the interrupted turn it runs again after a restart).
   * Resolves with the triggers it took in but ended before the planner read, if any: they
   * start the session's next turn.
   */
  async run(request: TurnRequest): Promise<Batch | undefined> {
    const { batch, absorbInto, rerunOf } = request;
    const deps = this.deps;
    const initial = deps.recalled.without(batch);
    if (!initial) {
      deps.triggersTaken?.(batch);
      deps.logger.info(
        { sessionId: batch.sessionId, triggerIds: batch.triggerIds },
        "turn not started: the messages that started it were recalled",
      );
      return;
    }
    const replyId = randomUUID();
    const createdAt = Date.now();
    const fence = deps.fenceOf?.(initial.sessionId);
    const journal = new TurnJournal({
      turns: deps.turns,
      logger: deps.logger,
      replyId,
      createdAt,
      ...(rerunOf && { rerunOf }),
      ...(deps.instanceId !== undefined && { instanceId: deps.instanceId }),
      ...(deps.triggersTaken && { triggersTaken: deps.triggersTaken }),
      ...(fence !== undefined && { fence }),
    });
    // Committed while the turn reads its context (history, memories): its first model call waits
    // for it. Refused (another instance holds the session now), the turn stops at once.
    const journalled = journal.running(initial).then((refusal) => {
      if (refusal) this.fencedOut(replyId, refusal);
      return refusal;
    });
    // Every call of the turn (planner, replyer, transcript) is counted for the user who started it.
    const user = turnUser(initial);
    let calls = 0;
    const llm: TurnRunnerDeps["llm"] = {
      generate: async (request) => {
        const refusal = await journalled;
        if (refusal) throw refusal;
        // The first call was admitted with the turn; a later one only while no budget is crossed.
        const crossed = calls++ > 0 ? await deps.budgets.crossed(turn.batch, replyId) : undefined;
        if (crossed !== undefined) throw new TurnStopped(crossed);
        return deps.llm.generate({ ...request, userKey: user, ...(initial.economy && { economy: true }) });
      },
    };
    const settings = deps.settings(initial);
    const abort = new AbortController();
    this.running.add(abort);
    if (fence !== undefined) this.fenced.set(replyId, { fence, abort });
    const timer = setTimeout(() => abort.abort(new TurnFailure("turn timed out")), settings.turnTimeoutMs);
    const pictures = deps.picturesForTurn({
      replyId,
      origin: initial.requestedBy ?? initial.messages[0]!,
      signal: abort.signal,
    });
    const plugins = deps.plugins.forTurn({
      batch: initial,
      replyId,
      signal: abort.signal,
      prompts: settings.prompts,
      pictures: pictures.texts,
    });
    const { clearUnasked } = deps;
    const replies = deps.replyStage.forTurn({
      llm,
      replyId,
      sessionId: initial.sessionId,
      signal: abort.signal,
      textChunkLimit: settings.textChunkLimit,
      // Asked for meanwhile (a trigger it absorbed), the turn answers like any other.
      ...(initial.unasked &&
        clearUnasked && {
          holdBack: async (text: string) =>
            turn.batch.unasked ? clearUnasked(turn.batch, replyId, text, abort.signal) : undefined,
        }),
    });
    // Messages recalled while they waited never join the turn.
    const absorbUnrecalled = (current: Batch) => {
      const merged = absorbInto(current);
      return merged && (deps.recalled.without(merged) ?? merged);
    };
    const turn = new TurnContext({
      replyId,
      batch: initial,
      absorbInto: absorbUnrecalled,
      settings,
      signal: abort.signal,
      journal,
      replies,
      plugins,
      pictures,
      deps: { ...deps, historyWindows: this.historyWindows },
    });
    this.turns.set(turn, abort);
    deps.monitor.emit({
      type: "turn.started",
      replyId,
      sessionId: initial.sessionId,
      data: {
        ...turnStartedData(initial),
        ...(rerunOf === undefined ? {} : { recoveredFrom: rerunOf.replyId }),
      },
    });
    let outcome: TurnOutcome;
    let stoppedBy: unknown;
    try {
      outcome = await (initial.kind === "realtime"
        ? runPlanner(turn, { ...deps, llm })
        : readTranscript(turn, { ...deps, llm }));
    } catch (error) {
      stoppedBy = error;
      // A turn stopped from outside (its trigger recalled) fails its call with the abort's error.
      const stopped = error instanceof TurnStopped ? error : abort.signal.reason;
      outcome =
        stopped instanceof TurnStopped
          ? { status: "silent", reason: stopped.message }
          : { status: "failed", reason: failureReason(error, abort.signal) };
    } finally {
      clearTimeout(timer);
      this.running.delete(abort);
      this.turns.delete(turn);
      this.fenced.delete(replyId);
    }
    await turn.plugins.stop(outcome.status, outcome.reason);
    // A turn that ended before any model call: its end must not be written before its start.
    await journalled;
    const refusal = [abort.signal.reason, stoppedBy].find(isSessionFenced);
    if (refusal) {
      this.#handOver(turn.batch, replyId, refusal);
      return undefined;
    }
    const record = await journal.finished(turn.batch, outcome, turn.detail());
    deps.monitor.emit({
      type: "turn.finished",
      replyId,
      sessionId: initial.sessionId,
      data: { status: outcome.status, reason: outcome.reason, durationMs: record.finishedAt - createdAt },
    });
    const line = { replyId, sessionId: initial.sessionId, status: outcome.status, reason: outcome.reason };
    if (outcome.status === "failed") deps.logger.warn(line, "turn failed");
    else deps.logger.info(line, `turn ${outcome.status}`);
    // A reply answers the whole batch (the replyer read all of it); otherwise what the planner
    // never read is still unanswered.
    const unanswered = outcome.status === "replied" ? undefined : turn.unanswered();
    if (unanswered) {
      deps.logger.info(
        { replyId, sessionId: initial.sessionId, triggerIds: unanswered.triggerIds },
        "the turn ended before the planner read messages it took in; they start the next turn",
      );
    }
    return unanswered;
  }

  /**
   * A turn the store refused because another instance holds its session now: nothing more is
   * written for it here (its record is the new owner's to settle), and its triggers and record
   * go to that owner, which answers what no turn answered.
   */
  #handOver(batch: Batch, replyId: string, refusal: SessionFenced): void {
    const { deps } = this;
    deps.monitor.emit({
      type: "turn.finished",
      replyId,
      sessionId: batch.sessionId,
      data: { status: "failed", reason: refusal.message, durationMs: 0 },
    });
    deps.logger.info(
      { replyId, sessionId: batch.sessionId, triggerIds: batch.triggerIds },
      "turn stopped: another instance holds its session now; its messages went there",
    );
    deps.handOver?.({ sessionId: batch.sessionId, replyIds: [replyId], triggerIds: batch.triggerIds });
  }
}
