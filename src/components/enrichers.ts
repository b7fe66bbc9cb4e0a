import type { Logger } from "../log/logger.ts";
import { errorMessage } from "../util/values.ts";
import { callWithLimit } from "./call-limit.ts";
import { ComponentRegistry } from "./registry.ts";
import type { CallContext, EnricherComponent } from "./types.ts";

export class EnricherRegistry extends ComponentRegistry<EnricherComponent> {}

/**
 * Runs the enrichers for one turn concurrently; each answer becomes a section of the
 * planner's request (after the chat) under a heading naming the enricher and its plugin.
 * An enricher that fails, answers nothing or exceeds its timeout is left out with a log
 * line: the turn never waits longer than the slowest timeout. Each call's signal aborts at
 * its timeout.
 */
export async function collectEnrichments(
  enrichers: EnricherComponent[],
  call: CallContext,
  logger: Logger,
): Promise<string[]> {
  const sections = await Promise.all(
    enrichers.map(async (enricher) => {
      try {
        const text = await callWithLimit(enricher.timeoutMs, call.signal, (signal) =>
          enricher.invoke({ ...call, signal }),
        );
        if (text === undefined || text === null || text === "") return undefined;
        if (typeof text !== "string") throw new Error(`returned ${typeof text}, not text`);
        return `## ${enricher.name}（插件 ${enricher.pluginId} 提供的补充信息）\n${text.trim()}`;
      } catch (error) {
        logger.warn(
          { enricher: enricher.fullName, replyId: call.replyId },
          `enricher skipped: ${errorMessage(error)}`,
        );
        return undefined;
      }
    }),
  );
  return sections.filter((section): section is string => section !== undefined);
}
