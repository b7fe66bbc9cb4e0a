import type { Batch } from "../chat/batch.ts";
import { collectEnrichments, type EnricherRegistry } from "../components/enrichers.ts";
import type { HookRunner } from "../components/hooks.ts";
import type { ApprovalService } from "../components/hooks-approval.ts";
import type { SystemPartsRegistry } from "../components/system-parts.ts";
import { executeTool, type ToolOutcome } from "../components/tool-executor.ts";
import { isPluginTool, type ToolRegistry, toolSpecOf } from "../components/tool-registry.ts";
import type { CallContext, CallContexts, PluginToolComponent, SessionRef } from "../components/types.ts";
import type { LlmToolCall, ToolSpec } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PictureTexts } from "../message/picture-text.ts";
import { renderSegments } from "../message/render.ts";
import { parseSessionId } from "../message/session-id.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { AgentStopInput, HookInput, PreReplyGenerateInput } from "../sdk/types.ts";
import { type BuiltinTool, TOOL_SEARCH_TOOL, type ToolTexts } from "./builtin-tools.ts";
import { ToolDeferral, type ToolDeferralSettings } from "./tool-deferral.ts";

export interface TurnPluginsDeps {
  /** Every tool: the plugins' and MCP servers', and the built-in ones (also in `builtins`). */
  tools: ToolRegistry;
  /** The built-in tools, in the order they are declared. */
  builtins: readonly BuiltinTool[];
  hooks: HookRunner;
  enrichers: EnricherRegistry;
  /** Channel prompt parts (stdio `channel_prompt`). */
  systemParts: SystemPartsRegistry;
  approvals: ApprovalService;
  contexts: CallContexts;
  /** When the session's tools are too many to declare them all (agent.deferToolsAbove …). */
  deferral: () => ToolDeferralSettings;
  logger: Logger;
}

/** A tool the planner may call this round: a built-in one, run by the turn, or a plugin's. */
export type OfferedTool = { builtin: BuiltinTool } | { plugin: PluginToolComponent };

/** The tools of one planner round: what its request declares, and what its calls may name. */
export interface ToolOffer {
  specs: ToolSpec[];
  find(name: string): OfferedTool | undefined;
}

/** How a turn may start: with the enrichers' sections, or refused by a UserPromptSubmit guard (the reason). */
export type TurnStart = { enrichments: string[] } | { refusal: string };

/** What plugins contribute to agent turns: tools, enrichers and the hooks around them. */
export class TurnPlugins {
  /** Sessions that had a turn since start-up (SessionStart fires once for each). */
  private readonly startedSessions = new Set<string>();

  constructor(private readonly deps: TurnPluginsDeps) {}

  /** One turn's view of the plugins; the first turn of a session since start-up also fires SessionStart. */
  forTurn(turn: TurnPluginTurn): TurnPluginScope {
    const firstTurn = !this.startedSessions.has(turn.batch.sessionId);
    this.startedSessions.add(turn.batch.sessionId);
    const deferral = new ToolDeferral(this.deps.deferral(), turn.prompts);
    return new TurnPluginScope({ deps: this.deps, ...turn, firstTurn, deferral });
  }
}

/** The turn a plugin scope is for. */
export interface TurnPluginTurn {
  batch: Batch;
  replyId: string;
  signal: AbortSignal;
  /** Words what the planner is told when a hook or an admin refuses a call. */
  prompts: PromptTemplates;
  /** The trigger's picture descriptions, as plugins read them (the turn's, filled as it describes). */
  pictures: PictureTexts;
}

export interface TurnPluginScopeParts extends TurnPluginTurn {
  deps: TurnPluginsDeps;
  /** The session's first turn since start-up: SessionStart fires. */
  firstTurn: boolean;
  deferral: ToolDeferral;
}

/** One turn's view of the plugins, bound to the message that started it. */
export class TurnPluginScope {
  readonly session: SessionRef;
  /** Messages plugin tools sent themselves during the turn. */
  readonly sentByTools: string[] = [];
  private readonly call: CallContext | undefined;
  private readonly deps: TurnPluginsDeps;
  private readonly batch: Batch;
  private readonly replyId: string;
  private readonly signal: AbortSignal;
  private readonly firstTurn: boolean;
  private readonly prompts: PromptTemplates;
  private readonly deferral: ToolDeferral;

  constructor(parts: TurnPluginScopeParts) {
    const { deps, batch, replyId, signal, pictures } = parts;
    this.deps = deps;
    this.batch = batch;
    this.replyId = replyId;
    this.signal = signal;
    this.firstTurn = parts.firstTurn;
    this.prompts = parts.prompts;
    this.deferral = parts.deferral;
    this.session = {
      sessionId: batch.sessionId,
      chatType: parseSessionId(batch.sessionId)?.chatType ?? batch.messages[0]?.chatType ?? "group",
    };
    const event = eventMessage(batch);
    this.call = event
      ? deps.contexts.forMessage(event, {
          signal,
          replyId,
          pictures,
          onSent: (messageId) => this.sentByTools.push(messageId),
        })
      : undefined;
  }

  /**
   * The tools offered this round: each built-in one whose rule says so, then the plugin tools
   * (with `tool_search` in place of the deferred ones, between those always shown and those it
   * found). The stable part comes first, as providers cache a prompt's prefix: built-in tools
   * offered per turn (`perTurn`: a poke, who asks) follow the plugin tools shown every turn,
   * and what `tool_search` finds comes last. Plugin tools need the message a call is made
   * for: none without one.
   */
  async offerTools(texts: ToolTexts, batch: Batch): Promise<ToolOffer> {
    const pluginTools = this.call ? this.pluginTools() : [];
    const declared = this.deferral.declared(pluginTools);
    const round = { session: this.session, batch, deferring: declared.deferring };
    const builtins: BuiltinTool[] = [];
    for (const tool of this.deps.builtins) if (await tool.offered(round)) builtins.push(tool);
    const isSearch = (tool: BuiltinTool) => tool.name === TOOL_SEARCH_TOOL;
    const specs = [
      ...builtins.filter((tool) => !isSearch(tool) && !tool.perTurn).map((tool) => tool.spec(texts)),
      ...declared.shown.map(toolSpecOf),
      ...builtins.filter((tool) => tool.perTurn).map((tool) => tool.spec(texts)),
      ...builtins.filter(isSearch).map((tool) => tool.spec(texts)),
      ...declared.found.map(toolSpecOf),
    ];
    return {
      specs,
      find: (name) => {
        const builtin = builtins.find((tool) => tool.name === name);
        if (builtin) return { builtin };
        const withheld = this.deps.builtins.find((tool) => tool.name === name && tool.withheld);
        if (withheld?.withheld) {
          const refuse = withheld.withheld.bind(withheld);
          return { builtin: { ...withheld, validate: () => undefined, run: (_args, call) => refuse(call) } };
        }
        // Plugin tools as they are now: one registered since the request (a plugin that just activated) answers too.
        const plugin = this.call ? this.deferral.find(name, this.pluginTools()) : undefined;
        return plugin && { plugin };
      },
    };
  }

  /** `tool_search`: ranks this session's deferred plugin tools; the best become callable. */
  searchTools(query: string): string {
    return this.deferral.search(query, this.pluginTools());
  }

  private pluginTools(): PluginToolComponent[] {
    return this.deps.tools.visibleIn(this.session).filter(isPluginTool);
  }

  /** The system prompt parts this session's channel declared, ordered by key. */
  systemParts(): string[] {
    return this.deps.systemParts.forSession(this.session.sessionId);
  }

  /**
   * SessionStart (first turn of the session) and UserPromptSubmit, then the enrichers'
   * sections; or, when a UserPromptSubmit guard refused the prompt, why the turn ends here.
   */
  async start(): Promise<TurnStart> {
    const call = this.call;
    if (!call) return { enrichments: [] };
    if (this.firstTurn) await this.hook({ event: "SessionStart" }, call);
    const verdict = await this.hook({ event: "UserPromptSubmit", prompt: promptText(this.batch) }, call);
    // A prompt has no approval step: a guard asking for one does not let it through either.
    if (verdict.decision === "deny" || verdict.decision === "ask") {
      const what =
        verdict.decision === "deny" ? "denied" : "asked for an approval, which a prompt cannot get (denied)";
      return {
        refusal: `UserPromptSubmit hook ${verdict.by} ${what}${verdict.message ? `: ${verdict.message}` : ""}`,
      };
    }
    const enrichers = this.deps.enrichers.visibleIn(this.session);
    return {
      enrichments: enrichers.length > 0 ? await collectEnrichments(enrichers, call, this.deps.logger) : [],
    };
  }

  /**
   * PreToolUse: undefined lets the call run (every hook allowed or deferred, or none
   * matched); otherwise the text the model is told instead. "ask" waits for an admin
   * (`/approve <id>`) up to the approval timeout.
   */
  async admit(call: LlmToolCall, input: Record<string, unknown>): Promise<string | undefined> {
    const context = this.call;
    if (!context) return undefined;
    const verdict = await this.hook(
      { event: "PreToolUse", tool_name: call.name, tool_input: input },
      context,
    );
    if (verdict.decision === "deny") {
      const reason = verdict.message || this.prompts.render("result_hook_denied_default");
      return this.prompts.render("result_hook_denied", { reason });
    }
    if (verdict.decision !== "ask") return undefined;
    const { request, answer } = this.deps.approvals.request({
      tool: call.name,
      input,
      sessionId: this.batch.sessionId,
      replyId: this.replyId,
      ...(verdict.message ? { reason: verdict.message } : {}),
      ...(verdict.by ? { hook: verdict.by } : {}),
    });
    const seconds = Math.round((request.expiresAt - request.requestedAt) / 1000);
    const why = verdict.message
      ? this.prompts.render("approval_request_why", { reason: verdict.message })
      : "";
    try {
      await context.bot.send(
        context.event,
        this.prompts.render("approval_request", {
          tool: call.name,
          why,
          id: request.id,
          seconds: String(seconds),
        }),
      );
    } catch (error) {
      this.deps.logger.warn(
        { approval: request.id, err: error },
        "could not post the approval request in chat",
      );
    }
    const result = await answer;
    this.deps.logger.info(
      { approval: request.id, tool: call.name, answer: result },
      "tool approval answered",
    );
    if (result === "approved") return undefined;
    return this.prompts.render(result === "denied" ? "result_approval_denied" : "result_approval_expired");
  }

  async runTool(
    tool: PluginToolComponent,
    call: LlmToolCall,
    input: Record<string, unknown>,
  ): Promise<ToolOutcome> {
    const context = this.call!;
    return executeTool(tool, input, { ...context, callId: call.id }, this.signal);
  }

  /** PostToolUse / PostToolUseFailure: hooks are told; their decisions change nothing. */
  async settled(
    call: LlmToolCall,
    input: Record<string, unknown>,
    output: unknown,
    failure?: string,
  ): Promise<void> {
    const context = this.call;
    if (!context) return;
    const base = { tool_name: call.name, tool_input: input };
    if (failure === undefined)
      await this.hook({ event: "PostToolUse", ...base, tool_output: output }, context);
    else await this.hook({ event: "PostToolUseFailure", ...base, error: failure }, context);
  }

  /**
   * PreReplyGenerate: hooks see what the replyer is about to be asked, the reply extensions'
   * `extra_prompt` included; their decisions change nothing.
   */
  async generating(
    input: Pick<PreReplyGenerateInput, "reply_message_id" | "intent" | "extra_prompt">,
  ): Promise<void> {
    if (this.call) await this.hook({ event: "PreReplyGenerate", ...input }, this.call);
  }

  /** AgentStop, told how the turn ended. */
  async stop(status: AgentStopInput["status"], reason: string): Promise<void> {
    if (this.call) await this.hook({ event: "AgentStop", status, reason }, this.call);
  }

  private hook(input: HookEventFields, call: CallContext) {
    return this.deps.hooks.run(
      { ...input, session_id: this.batch.sessionId, reply_id: this.replyId },
      call,
      this.session,
    );
  }
}

/** A hook input without the fields every event carries (the scope adds them). */
type HookEventFields = HookInput extends infer Input
  ? Input extends HookInput
    ? Omit<Input, "session_id" | "reply_id">
    : never
  : never;

/** The message plugin handlers see as `event`: the newest trigger, else the newest message from someone else. */
function eventMessage(batch: Batch): ChatMessage | undefined {
  const messages = batch.messages;
  const trigger = batch.triggerIds.at(-1);
  return (
    messages.findLast((message) => message.messageId === trigger) ??
    messages.findLast((message) => !message.fromSelf) ??
    messages.at(-1)
  );
}

/** The turn's new messages as "name: text" lines. */
function promptText(batch: Batch): string {
  return batch.messages
    .map((message) => `${message.senderName}: ${renderSegments(message.segments)}`)
    .join("\n");
}
