import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { ComponentRegistry } from "../plugins/component-registry.ts";
import type { CallContext, HookComponent, SessionRef } from "../plugins/components.ts";
import type { HookDecision, HookInput } from "../sdk/types.ts";
import { errorMessage } from "./tool-executor.ts";

export class HookRegistry extends ComponentRegistry<HookComponent> {}

/** The strongest decision wins: deny > ask > defer > allow. */
const STRENGTH: Record<HookDecision, number> = { allow: 0, defer: 1, ask: 2, deny: 3 };
const DECISIONS = new Set(Object.keys(STRENGTH));

export interface HookVerdict {
  /** "defer" when no hook had an opinion (or none matched). */
  decision: HookDecision;
  /** The deciding hook's message, when it gave one. */
  message?: string;
  /** Full name of the deciding hook. */
  by?: string;
}

/**
 * Runs the hooks of one event that apply to the session (and, for tool events, match the
 * tool) concurrently and combines their decisions. A hook that returns nothing allows; one
 * that throws, answers nonsense or runs past its timeout is skipped with a log line.
 */
export class HookRunner {
  constructor(
    readonly registry: HookRegistry,
    private readonly monitor: Monitor,
    private readonly logger: Logger,
  ) {}

  async run(input: HookInput, call: CallContext, session: SessionRef): Promise<HookVerdict> {
    if (this.registry.size === 0) return { decision: "defer" };
    const hooks = this.registry
      .visibleIn(session)
      .filter((hook) => hook.event === input.event && hook.matches(input.tool_name));
    if (hooks.length === 0) return { decision: "defer" };
    const answers = await Promise.all(hooks.map((hook) => this.ask(hook, input, call)));
    let verdict: HookVerdict = { decision: "defer" };
    let strongest = -1;
    for (const [index, answer] of answers.entries()) {
      if (!answer || STRENGTH[answer.decision] <= strongest) continue;
      strongest = STRENGTH[answer.decision];
      verdict = { ...answer, by: hooks[index]!.fullName };
    }
    this.monitor.emit({
      type: "hook.decision",
      replyId: input.reply_id,
      sessionId: input.session_id,
      data: {
        event: input.event,
        tool: input.tool_name ?? null,
        decision: verdict.decision,
        by: verdict.by ?? null,
        message: verdict.message ?? null,
        hooks: hooks.map((hook, index) => ({
          hook: hook.fullName,
          decision: answers[index]?.decision ?? null,
        })),
      },
    });
    return verdict;
  }

  private async ask(
    hook: HookComponent,
    input: HookInput,
    call: CallContext,
  ): Promise<{ decision: HookDecision; message?: string } | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${hook.timeoutMs} ms`)), hook.timeoutMs);
    });
    try {
      const result = await Promise.race([hook.invoke(input, call), timeout]);
      if (result === undefined || result === null) return { decision: "allow" };
      if (typeof result !== "object" || !DECISIONS.has(result.decision)) {
        throw new Error(`answered ${JSON.stringify(result)}, not { decision: allow | deny | ask | defer }`);
      }
      return typeof result.message === "string"
        ? { decision: result.decision, message: result.message }
        : { decision: result.decision };
    } catch (error) {
      this.logger.warn({ hook: hook.fullName, event: input.event }, `hook skipped: ${errorMessage(error)}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
