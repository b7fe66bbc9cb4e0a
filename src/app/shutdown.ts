import type { ChatAdapter } from "../adapters/types.ts";
import type { TurnRunner } from "../agent/turn-runner.ts";
import type { DigestScheduler } from "../chat/digest-scheduler.ts";
import type { KeyedQueue } from "../chat/keyed-queue.ts";
import type { RealtimeBatcher } from "../chat/realtime-batcher.ts";
import type { Cluster } from "../cluster/cluster.ts";
import type { LocalModels } from "../llm/llama-cpp/local-models.ts";
import type { Logger } from "../log/logger.ts";
import type { MemoryLearner } from "../memory/memory-learner.ts";
import type { Timeline } from "../monitor/timeline.ts";
import type { PluginSystem } from "../plugins/plugin-system.ts";
import type { PromptLibrary } from "../prompts/prompt-library.ts";
import type { HttpServer } from "../server/http-server.ts";
import type { Stores } from "../store/types.ts";

/** How long shutdown waits for turns in flight before closing anyway (the exit comes within 10 s). */
const SHUTDOWN_GRACE_MS = 3_000;
/** How long failed turns get to wind down; then stdio plugins have their 5 s deactivation grace. */
const SHUTDOWN_ABORT_MS = 1_000;

export interface ShutdownParts {
  /** Stops watching the config file. */
  stopWatching: () => void;
  prompts: PromptLibrary;
  batcher: RealtimeBatcher;
  digests: DigestScheduler;
  queue: KeyedQueue;
  turnRunner: TurnRunner;
  plugins: PluginSystem;
  /** Background learners (memory, groups' expressions). */
  learners: Array<Pick<MemoryLearner, "stop">>;
  /** The knowledge base's folder watcher and indexing. */
  knowledge: { stop(): Promise<void> };
  localModels: LocalModels;
  adapters: ReadonlyMap<string, ChatAdapter>;
  cluster: Cluster | undefined;
  server: HttpServer;
  timeline: Timeline;
  stores: Stores;
  logger: Logger;
}

/**
 * Stops the bot from the front of the message path to the back: no new batches, turns in
 * flight finish (or fail after the grace), then plugins, models, adapters, the cluster, the
 * server and last the stores, so everything said until then is written.
 */
export async function shutDown(parts: ShutdownParts): Promise<void> {
  const { queue, logger } = parts;
  logger.info("shutting down");
  parts.stopWatching();
  parts.prompts.close();
  parts.batcher.flushAll();
  parts.digests.stop();
  if (!(await queue.close(SHUTDOWN_GRACE_MS))) {
    logger.warn("turns still running at shutdown are failed now");
    parts.turnRunner.abortAll("shutting down");
    await queue.close(SHUTDOWN_ABORT_MS);
  }
  // Together: a stdio plugin and an MCP server may each take a few seconds to exit.
  await parts.plugins.stop();
  for (const learner of parts.learners) await learner.stop();
  await parts.knowledge.stop();
  await parts.localModels.close();
  for (const adapter of parts.adapters.values()) await adapter.stop();
  await parts.cluster?.stop();
  await parts.server.close();
  parts.timeline.stop();
  await parts.stores.close();
  logger.info("stopped");
}
