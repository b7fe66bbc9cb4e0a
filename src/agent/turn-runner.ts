import { randomUUID } from "node:crypto";
import type { Batch } from "../chat/batch.ts";
import { turnStartedData } from "../chat/turn-started.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { StickerCollection } from "../media/sticker-collection.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { ReplyStage } from "../reply/reply-stage.ts";
import type { MessageStore, TurnStore } from "../store/types.ts";
import { HistoryWindows } from "./history-window.ts";
import { runPlanner } from "./planner-loop.ts";
import type { AgentSettings } from "./settings.ts";
import { readTranscript } from "./transcript-turn.ts";
import { TurnContext, type TurnContextDeps, type TurnPictureView } from "./turn-context.ts";
import { TurnJournal } from "./turn-journal.ts";
import { failureReason, TurnFailure, type TurnOutcome } from "./turn-outcome.ts";
import type { TurnPlugins } from "./turn-plugins.ts";

export interface TurnRunnerDeps {
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  messages: MessageStore;
  turns: TurnStore;
  /** In a cluster, this instance's id: recorded on each turn, so another can take it over if this one dies. */
  instanceId?: string;
  /** A turn's start is committed (or could not be): its triggers are taken, no longer pending. */
  triggersTaken?: (batch: Batch) => void;
  /** The quote block (seed 003) for a realtime turn's quoting message; never rejects. */
  quotes: TurnContextDeps["quotes"];
  settings: () => AgentSettings;
  /** Plugin tools, enrichers and hooks. */
  plugins: TurnPlugins;
  /**
   * Describes the pictures a turn shows its models (within the caps; nothing without a vision
   * model), and fetches the new messages' pictures for a model that accepts images.
   */
  picturesForTurn(turn: { replyId: string; origin: ChatMessage; signal: AbortSignal }): TurnPictureView;
  /** Writes and sends what the planner decided to say (replies, digests, summaries). */
  replyStage: ReplyStage;
  /** Kept stickers, for the planner's `send_sticker`. */
  stickers: StickerCollection;
  /** Long-term memory: recalled into each turn's prompts, written by `remember`, searched by `recall`. */
  memory: MemoryService;
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
  private readonly historyWindows = new HistoryWindows();

  constructor(private readonly deps: TurnRunnerDeps) {}

  /** Fails every running turn at once (shutdown): each ends cleanly with this reason. */
  abortAll(reason: string): void {
    for (const controller of this.running) controller.abort(new TurnFailure(reason));
  }

  /** Runs one turn; `recoveredFrom` names the interrupted turn it runs again after a restart. */
  async run(
    initial: Batch,
    absorbInto: (current: Batch) => Batch | undefined,
    recoveredFrom?: string,
  ): Promise<void> {
    const deps = this.deps;
    const replyId = randomUUID();
    const createdAt = Date.now();
    const journal = new TurnJournal(
      deps.turns,
      deps.logger,
      replyId,
      createdAt,
      recoveredFrom,
      deps.instanceId,
      deps.triggersTaken,
    );
    // Committed while the turn reads its context (history, memories): its first model call waits for it.
    const journalled = journal.running(initial);
    const llm: TurnRunnerDeps["llm"] = {
      generate: async (request) => {
        await journalled;
        return deps.llm.generate(request);
      },
    };
    const settings = deps.settings();
    const abort = new AbortController();
    this.running.add(abort);
    const timer = setTimeout(() => abort.abort(new TurnFailure("turn timed out")), settings.turnTimeoutMs);
    const pictures = deps.picturesForTurn({
      replyId,
      origin: initial.requestedBy ?? initial.messages[0]!,
      signal: abort.signal,
    });
    const plugins = deps.plugins.forTurn(initial, replyId, abort.signal, settings.prompts, pictures.texts);
    const replies = deps.replyStage.forTurn({
      replyId,
      sessionId: initial.sessionId,
      signal: abort.signal,
      textChunkLimit: settings.textChunkLimit,
    });
    const turn = new TurnContext(
      replyId,
      initial,
      absorbInto,
      settings,
      {
        ...deps,
        historyWindows: this.historyWindows,
        pictures,
      },
      abort.signal,
      journal,
      replies,
    );
    deps.monitor.emit({
      type: "turn.started",
      replyId,
      sessionId: initial.sessionId,
      data: { ...turnStartedData(initial), ...(recoveredFrom === undefined ? {} : { recoveredFrom }) },
    });
    let outcome: TurnOutcome;
    try {
      outcome = await (initial.kind === "realtime"
        ? runPlanner(turn, plugins, { ...deps, llm })
        : readTranscript(turn, { ...deps, llm }));
    } catch (error) {
      outcome = { status: "failed", reason: failureReason(error, abort.signal) };
    } finally {
      clearTimeout(timer);
      this.running.delete(abort);
    }
    await plugins.stop(outcome.status, outcome.reason);
    // A turn that ended before any model call: its end must not be written before its start.
    await journalled;
    const record = await journal.finished(turn.batch, outcome, turn.detail(plugins.sentByTools));
    deps.monitor.emit({
      type: "turn.finished",
      replyId,
      sessionId: initial.sessionId,
      data: { status: outcome.status, reason: outcome.reason, durationMs: record.finishedAt - createdAt },
    });
    const line = { replyId, sessionId: initial.sessionId, status: outcome.status, reason: outcome.reason };
    if (outcome.status === "failed") deps.logger.warn(line, "turn failed");
    else deps.logger.info(line, `turn ${outcome.status}`);
  }
}
