/**
 * The path of a message, every stage in order. Read this file to follow a message from an
 * adapter to a turn:
 *
 *   accept → poker's name → route → store → trigger → access → group decisions → commands → notice → participation → pending triggers → batch
 *
 * and a batch, one turn at a time per session (SessionRunner), through the turn gates:
 *
 *   ownership → governor → limits → gate model → plugins → turn
 *
 * `route`, `pending triggers` and `ownership` are the cluster's stages, there only with
 * `cluster.redisUrl`. Platform adapters' messages enter at `accept`; the console playground,
 * stdio channels and messages the cluster routes to this instance enter at `store`. The batch
 * stage hands a message to a realtime window or the digest; their batches go to the session
 * runner when the window closes. A turn the planner left with unread triggers submits them as
 * the session's next batch; a turn a crash interrupted runs again through the same runner.
 * `participation` decides whether the bot joins a conversation nobody addressed it in (and
 * drops other bots' triggers); `governor` and `gate model` apply only to such unasked turns.
 * `group decisions` takes a requester's "确认" of a kick and an admin's answer to a join request
 * (src/manage/), which go no further.
 */
import type { ChatAdapter } from "../adapters/types.ts";
import type { TurnRunner } from "../agent/turn-runner.ts";
import type { Batch, OmittedMessages } from "../chat/batch.ts";
import { type Arrival, ChatService, type CommandHandler } from "../chat/chat-service.ts";
import { systemClock } from "../chat/clock.ts";
import { DigestScheduler } from "../chat/digest-scheduler.ts";
import type { KeyedQueue } from "../chat/keyed-queue.ts";
import { PlatformIntake } from "../chat/platform-intake.ts";
import { withPokerNamed } from "../chat/poke-names.ts";
import { RealtimeBatcher } from "../chat/realtime-batcher.ts";
import { SessionRunner, type TurnRequest } from "../chat/session-runner.ts";
import { type PathEnd, type Stage, StagePath } from "../chat/stage-path.ts";
import type { TurnLimits } from "../chat/turn-limits.ts";
import type { Cluster } from "../cluster/cluster.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { GroupKeeper } from "../manage/group-keeper.ts";
import type { MemoryLearner } from "../memory/memory-learner.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { GateModel } from "../participation/gate-model.ts";
import type { Participation } from "../participation/participation.ts";
import type { Outbox } from "../reply/outbox.ts";
import type { MessageStore } from "../store/types.ts";
import { runsAccount } from "./adapters.ts";
import { deliveryLedger, mayRunHere } from "./cluster-member.ts";
import type { PluginsReady } from "./plugins-ready.ts";
import { triggerSettings, turnBounds } from "./service-settings.ts";

export interface MessagePathParts {
  messages: MessageStore;
  commands: CommandHandler;
  /** Background learners (memory, groups' expressions), told of each message that passed the commands. */
  learners: Array<Pick<MemoryLearner, "noticed">>;
  queue: KeyedQueue;
  limits: Pick<TurnLimits, "admit">;
  /** Holds turns that start while plugins are still in their first activation (bounded). */
  pluginsReady: Pick<PluginsReady, "gate">;
  turnRunner: Pick<TurnRunner, "run">;
  cluster: Cluster | undefined;
  /** This instance's OneBot connections: only their chats are routed and owned in the cluster. */
  platformAdapters: ReadonlyMap<string, ChatAdapter>;
  /** Every adapter the bot uses: its accounts are the bot's own. */
  adapters: ReadonlyMap<string, ChatAdapter>;
  config: () => TsumugiConfig;
  /** The bot's sends on their way: a reply may quote one before its message id is known. */
  outbox: Pick<Outbox, "sendsInFlight">;
  /** Joining conversations unasked and the governor's rules for it. */
  participation: Pick<Participation, "stage" | "mayStart" | "heldBack">;
  /** Confirmations of kicks and admins' answers to join requests (src/manage/). */
  groupDecisions: Pick<GroupKeeper, "stage">;
  gate: Pick<GateModel, "allows">;
  monitor: Monitor;
  logger: Logger;
}

export interface MessagePath {
  /** Where platform adapters' messages enter (the accept stage). */
  fromPlatform(message: ChatMessage): void;
  /** Where this instance's own chats and the messages routed to it enter (the store stage). */
  fromLocal(message: ChatMessage): void;
  messageStages: StagePath<Arrival>;
  turnGates: StagePath<TurnRequest>;
  sessions: SessionRunner;
  batcher: RealtimeBatcher;
  digests: DigestScheduler;
}

const stage = <T>(name: string, run: Stage<T>["run"]): Stage<T> => ({ name, run });

/** Builds the message stages and the turn gates, in the order they run, and what runs them. */
export function createMessagePath(parts: MessagePathParts): MessagePath {
  const { cluster, config, monitor, logger } = parts;
  const isPlatform = (message: ChatMessage) => parts.platformAdapters.has(message.adapterId);

  const turnGates = new StagePath<TurnRequest>(
    [
      ...(cluster
        ? [
            stage<TurnRequest>("ownership", async (request) => {
              // A turn run again after a crash is settled where its record was found.
              if (request.rerunOf || (await mayRunHere(cluster, parts.platformAdapters, request.batch)))
                return { go: request };
              logger.warn(
                { sessionId: request.batch.sessionId },
                "another instance owns this session now; its turn runs there",
              );
              return { stop: "another instance owns the session" };
            }),
          ]
        : []),
      stage<TurnRequest>("governor", (request) => {
        // An unasked turn waited: quiet or a cap may hold now. A rerun was let through before.
        const held = request.rerunOf ? undefined : parts.participation.mayStart(request.batch);
        return held === undefined ? { go: request } : { stop: held };
      }),
      stage<TurnRequest>("limits", async (request) => {
        // A turn run again after a crash was admitted before it.
        if (request.rerunOf) return { go: request };
        const admitted = await parts.limits.admit(request.batch);
        return admitted ? { go: { ...request, batch: admitted } } : { stop: "over a limit" };
      }),
      stage<TurnRequest>("gate model", async (request) => {
        const { batch } = request;
        if (!batch.unasked || request.rerunOf || (await parts.gate.allows(batch))) return { go: request };
        return { stop: parts.participation.heldBack(batch, "gate model") };
      }),
      stage<TurnRequest>("plugins", (request) => parts.pluginsReady.gate(request)),
      stage<TurnRequest>("turn", async (request) => {
        const unanswered = await parts.turnRunner.run(request);
        if (unanswered) sessions.submit(unanswered);
        return { go: request };
      }),
    ],
    {
      failed: ({ batch }, name, error) =>
        logger.error(
          { err: error, sessionId: batch.sessionId, stage: name },
          "session task failed unexpectedly",
        ),
    },
  );
  const sessions = new SessionRunner({
    queue: parts.queue,
    runTurn: async (request) => {
      await turnGates.run(request);
    },
    bounds: () => turnBounds(config()),
    onOmitted: reportOmitted(monitor, logger),
  });

  const flushed = (batch: Batch, reason: string) =>
    monitor.emit({
      type: "batch.flushed",
      sessionId: batch.sessionId,
      data: { kind: batch.kind, reason, messageIds: batch.messages.map((m) => m.messageId) },
    });
  const batcher = new RealtimeBatcher(
    () => config().chat.realtime,
    systemClock,
    (batch, reason) => {
      flushed(batch, reason);
      sessions.submit(batch);
    },
  );
  // Digests and summaries read a transcript: never merged with a turn people started.
  const digests = new DigestScheduler(
    () => config().chat.digest,
    systemClock,
    (batch, reason) => {
      flushed(batch, reason);
      sessions.submitAlone(batch);
    },
  );

  const intake = new PlatformIntake({
    ledger: deliveryLedger(cluster, parts.messages, logger),
    isOwnAccount: (platform, userId) => runsAccount(parts.adapters, platform, userId),
    logger,
  });
  const chat = new ChatService({
    store: parts.messages,
    batcher,
    digests,
    commands: parts.commands,
    triggers: (message) => triggerSettings(config(), message.groupId),
    access: () => config().access,
    monitor,
    logger,
    logMessageText: () => config().log.messageText,
    sendsInFlight: (sessionId) => parts.outbox.sendsInFlight(sessionId),
  });
  const messageStages = new StagePath<Arrival>(
    [
      stage("accept", (arrival) => intake.accept(arrival)),
      // Before anything stores or shows a poke: its notice names nobody.
      stage<Arrival>("poker's name", (arrival) =>
        arrival.message.notice === undefined
          ? { go: arrival }
          : withPokerNamed(arrival.message, parts.messages, logger).then((message) => ({
              go: { ...arrival, message },
            })),
      ),
      ...(cluster
        ? [
            stage<Arrival>("route", ({ message }) => {
              // The session's owner (this instance or another) takes it in at `store`.
              cluster.route(message);
              return { stop: "routed to the session's owner" };
            }),
          ]
        : []),
      stage("store", (arrival) => chat.store(arrival)),
      stage("trigger", (arrival) => chat.trigger(arrival)),
      stage("access", (arrival) => chat.access(arrival)),
      stage("group decisions", (arrival) => parts.groupDecisions.stage(arrival)),
      stage("commands", (arrival) => chat.command(arrival)),
      stage<Arrival>("notice", (arrival) => {
        for (const learner of parts.learners) learner.noticed(arrival.message);
        return { go: arrival };
      }),
      stage("participation", (arrival) => parts.participation.stage(arrival)),
      ...(cluster
        ? [
            stage<Arrival>("pending triggers", (arrival) => {
              // Answered by another instance should this one die before a turn takes it.
              if (arrival.trigger !== undefined && isPlatform(arrival.message))
                cluster.triggerAccepted(arrival.message);
              return { go: arrival };
            }),
          ]
        : []),
      stage("batch", (arrival) => chat.batch(arrival)),
    ],
    {
      // A chat's messages go on in the order they came, also while a store or Redis answer is awaited.
      orderBy: (arrival) => arrival.message.sessionId,
      failed: ({ message }, name, error) =>
        logger.error(
          { err: error, sessionId: message.sessionId, messageId: message.messageId, stage: name },
          "could not handle a message",
        ),
    },
  );
  const enter = (entrance: (arrival: Arrival) => PathEnd | Promise<PathEnd>) => (message: ChatMessage) => {
    void entrance({ message });
  };
  return {
    fromPlatform: enter(messageStages.from("accept")),
    fromLocal: enter(messageStages.from("store")),
    messageStages,
    turnGates,
    sessions,
    batcher,
    digests,
  };
}

/** Messages a turn had to leave out of its prompt: on the timeline and in the log. */
function reportOmitted(monitor: Monitor, logger: Logger) {
  return (batch: Batch, omitted: OmittedMessages): void => {
    const data = { kept: batch.messages.length, omitted: omitted.messageIds.length };
    monitor.emit({
      type: "batch.trimmed",
      sessionId: batch.sessionId,
      data: { ...data, messageIds: omitted.messageIds, triggerIds: omitted.triggerIds },
    });
    logger.warn(
      { sessionId: batch.sessionId, ...data, omittedTriggers: omitted.triggerIds.length },
      "too many messages for one turn: the oldest were left out of its prompt",
    );
  };
}
