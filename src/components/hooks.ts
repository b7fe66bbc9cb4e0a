import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { HookDecision, HookEventName, HookInput } from "../sdk/types.ts";
import { clip, errorMessage } from "../util/values.ts";
import { callWithLimit } from "./call-limit.ts";
import { ComponentRegistry } from "./registry.ts";
import type { CallContext, HookComponent, SessionRef } from "./types.ts";

export class HookRegistry extends ComponentRegistry<HookComponent> {}

/** The strongest decision wins: deny > ask > defer > allow. */
const STRENGTH: Record<HookDecision, number> = { allow: 0, defer: 1, ask: 2, deny: 3 };
const DECISIONS = new Set(Object.keys(STRENGTH));

/**
 * Events whose hooks are guards: their answer decides whether something happens (a tool
 * call, a turn). A guard that cannot answer — it throws, answers nonsense, times out, or its
 * plugin is not running — denies, so a broken guard never lets through what it guards. The
 * other events only observe; a failing hook there is skipped.
 */
const GUARD_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "UserPromptSubmit"]);

export function isGuardEvent(event: HookEventName): boolean {
  return GUARD_EVENTS.has(event);
}

export interface HookVerdict {
  /** "defer" when no hook had an opinion (or none matched): the default decides. */
  decision: HookDecision;
  /** The deciding hook's message, when it gave one; for a failed guard, why it failed. */
  message?: string;
  /** Full name of the deciding hook. */
  by?: string;
}

/** One hook's answer; `failure` when it gave none (a guard's failure counts as deny). */
interface HookAnswer {
  decision: HookDecision;
  message?: string;
  failure?: string;
}

/**
 * Runs the hooks of one event that apply to the session (and, for tool events, match the
 * tool) concurrently and combines their decisions. A hook that returns nothing allows. One
 * that throws, answers nonsense or runs past its timeout denies if it is a guard
 * (`isGuardEvent`) and is skipped otherwise, with a log line either way.
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
      .filter((hook) => hook.event === input.event && hook.matches(toolNameOf(input)));
    if (hooks.length === 0) return { decision: "defer" };
    const answers = await Promise.all(hooks.map((hook) => this.ask(hook, input, call)));
    let verdict: HookVerdict = { decision: "defer" };
    let strongest = -1;
    for (const [index, answer] of answers.entries()) {
      if (!answer || STRENGTH[answer.decision] <= strongest) continue;
      strongest = STRENGTH[answer.decision];
      verdict = {
        decision: answer.decision,
        ...(answer.message === undefined ? {} : { message: answer.message }),
        by: hooks[index]!.fullName,
      };
    }
    this.monitor.emit({
      type: "hook.decision",
      replyId: input.reply_id,
      sessionId: input.session_id,
      data: {
        event: input.event,
        tool: toolNameOf(input) ?? null,
        decision: verdict.decision,
        by: verdict.by ?? null,
        message: verdict.message ?? null,
        hooks: hooks.map((hook, index) => ({
          hook: hook.fullName,
          decision: answers[index]?.decision ?? null,
          ...(answers[index]?.failure === undefined ? {} : { failure: answers[index].failure }),
        })),
      },
    });
    return verdict;
  }

  /** The hook's answer; undefined when an observing hook failed (it is skipped). */
  private async ask(
    hook: HookComponent,
    input: HookInput,
    call: CallContext,
  ): Promise<HookAnswer | undefined> {
    try {
      // Only the limit aborts a hook: AgentStop is told how a turn ended after its signal aborted.
      const result = await callWithLimit(hook.timeoutMs, undefined, (signal) =>
        hook.invoke(input, { ...call, signal }),
      );
      if (result === undefined || result === null) return { decision: "allow" };
      if (typeof result !== "object" || !DECISIONS.has(result.decision)) {
        throw new Error(
          `answered ${clip(String(JSON.stringify(result)), 200)}, not { decision: allow | deny | ask | defer }`,
        );
      }
      return typeof result.message === "string"
        ? { decision: result.decision, message: result.message }
        : { decision: result.decision };
    } catch (error) {
      const failure = errorMessage(error);
      const fields = { hook: hook.fullName, event: input.event, tool: toolNameOf(input) };
      if (!isGuardEvent(input.event)) {
        this.logger.warn(fields, `hook skipped: ${failure}`);
        return undefined;
      }
      this.logger.warn(fields, `guard hook failed, denying: ${failure}`);
      return {
        decision: "deny",
        message: `检查钩子 ${hook.fullName} 没能作出判断（${failure}），为安全起见不放行`,
        failure,
      };
    }
  }
}

/** The tool a tool event is about; undefined for the other events. */
function toolNameOf(input: HookInput): string | undefined {
  return "tool_name" in input ? input.tool_name : undefined;
}
