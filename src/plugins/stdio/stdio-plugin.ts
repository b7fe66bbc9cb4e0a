import { isGuardEvent } from "../../agent/hooks.ts";
import type { SystemPartsRegistry } from "../../agent/system-parts.ts";
import { renderSegments } from "../../message/render.ts";
import type { Segment } from "../../message/segment.ts";
import type { Monitor } from "../../monitor/monitor.ts";
import { buildReplyExtension } from "../../reply/extension-builder.ts";
import type {
  ComponentOptions,
  HookEventName,
  HookInput,
  HookResult,
  ParametersDeclaration,
  ReplyExtensionOptions,
} from "../../sdk/types.ts";
import { type Built, buildEnricher, buildHook, buildTool } from "../component-builders.ts";
import type { CallContext, Component, Disposer, ToolComponent } from "../components.ts";
import type { ProcessStatus, RuntimeDetails, RuntimeLoadRequest } from "../runtime.ts";
import type { StdioChannels } from "./channel-adapter.ts";
import { channelSessionPrefix } from "./channel-session.ts";
import { chatParams } from "./chat-params.ts";
import { type CallOptions, PluginProcess } from "./plugin-process.ts";
import {
  type ActivateAnswer,
  type ChannelInbound,
  type ChannelPromptPush,
  type ChannelToolsPush,
  compileProtocol,
  type DeclarationKind,
  type EnricherDeclaration,
  type HookDeclaration,
  isJsonObject,
  isPushMethod,
  type JsonObject,
  type ProtocolValidators,
  problemsOf,
  type ReplyExtensionDeclaration,
  type ToolDeclaration,
  type WebUiPush,
} from "./protocol.ts";

/** How long a process may take to exit after `deactivate` before it is killed. */
export const DEACTIVATE_GRACE_MS = 5_000;
const FIRST_RETRY_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 30_000;
/**
 * How long a process must stay up after its activation before its failures are forgotten.
 * One that dies sooner continues the series, so a plugin that crashes right after every
 * activation backs off to the longest delay (and reaches `maxRetries`) instead of being
 * restarted at the first delay forever.
 */
export const STABLE_UPTIME_MS = 60_000;
/** How much longer than a plugin call's own limit the host's runner waits for it. */
const EXECUTOR_MARGIN_MS = 250;

/** Delay before the retry after the n-th failure in a row: 1 s·2^(n-1), at most 30 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
}

export interface StdioPluginDeps {
  channels: StdioChannels;
  systemParts: SystemPartsRegistry;
  monitor: Monitor;
}

/**
 * One loaded version of a stdio plugin: its process, restarted with exponential backoff when
 * it crashes, a call times out or an activation fails, and what the process declared. What a process declared
 * (tools, hooks, enrichers, channel tools, channel prompt, widgets) leaves with it, so a dead
 * plugin's tools are gone from the next planner request; only its guard hooks stay, denying.
 */
export class StdioPlugin {
  private process: PluginProcess | undefined;
  private activating = false;
  private unloading = false;
  private declared: Built<Component>[] = [];
  private channelTools: Built<Component>[] = [];
  private widgets: unknown[] | undefined;
  private provider: { name: string; configSchema?: unknown } | undefined;
  private removePrompt: Disposer = () => {};
  private detachChannel: Disposer = () => {};
  private channelAttached = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Forgets the failures once the running process has stayed up `STABLE_UPTIME_MS`. */
  private uptimeTimer: NodeJS.Timeout | undefined;
  private readonly status: ProcessStatus;
  private readonly protocol: ProtocolValidators;

  constructor(
    private readonly request: RuntimeLoadRequest,
    private readonly deps: StdioPluginDeps,
  ) {
    this.status = {
      state: "starting",
      command: commandLine(request.manifest.entry),
      restarts: 0,
      failures: 0,
    };
    this.protocol = compileProtocol(request.ajv);
  }

  get components(): Built<Component>[] {
    return [...this.declared, ...this.channelTools];
  }

  /**
   * A version that replaces a running one: its first activation must succeed and is not
   * retried (a failure fails the load, and the running version stays). Only an activated
   * version takes over the channel, so a broken edit leaves the running version's replies alone.
   */
  async start(): Promise<void> {
    try {
      await this.activate();
    } catch (error) {
      this.removePrompt();
      throw error;
    }
  }

  /**
   * A first load: the activation runs on in the background, so a plugin slow to answer
   * `activate` holds up nothing, and a failed one is retried like a crash (under
   * `autoRetry`). Settles, never rejecting, once the first attempt is over.
   */
  startInBackground(): Promise<void> {
    return this.activate().then(
      () => this.logger.info({ components: this.components.length }, "plugin activated"),
      (error: unknown) => this.activationFailed(error),
    );
  }

  async configChanged(config: Record<string, unknown>): Promise<void> {
    await this.call("config_changed", { config });
  }

  /**
   * Deactivation: `deactivate`, then up to 5 s for the process to exit, then it is killed; a
   * process still activating is killed at once.
   */
  async unload(): Promise<void> {
    this.unloading = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.uptimeTimer);
    this.detachChannel();
    this.removePrompt();
    const process = this.process;
    this.process = undefined;
    this.setState("stopped");
    // A process still activating was never activated: it is ended, not sent `deactivate`
    // behind its unanswered `activate` (which would only wait out the grace).
    if (process && this.activating) await process.terminate("was killed: unloaded while activating");
    else await process?.shutdown(DEACTIVATE_GRACE_MS);
  }

  details(): RuntimeDetails {
    return {
      process: { ...this.status },
      ...(this.widgets ? { widgets: this.widgets } : {}),
      ...(this.provider ? { channel: this.provider } : {}),
    };
  }

  private get id(): string {
    return this.request.manifest.id;
  }

  private get channelName(): string {
    return this.provider?.name ?? this.id;
  }

  private get logger() {
    return this.request.logger;
  }

  /** Starts a process and activates it; on failure the process is ended and the error thrown. */
  private async activate(): Promise<void> {
    const { manifest } = this.request;
    this.activating = true;
    const process: PluginProcess = new PluginProcess({
      command: this.status.command,
      cwd: this.request.dir,
      declaredEnv: manifest.env,
      timeoutMs: manifest.timeout,
      logger: this.logger,
      push: (method, params) => {
        if (this.process === process) this.onPush(method, params);
      },
      closed: (reason) => {
        if (this.process === process && !this.activating && !this.unloading) this.closed(reason);
      },
      ended: (reason) => {
        if (this.process === process && !this.activating && !this.unloading) this.lost(reason);
      },
    });
    this.process = process;
    this.status.pid = process.pid;
    this.status.startedAt = Date.now();
    try {
      const answer = await process.call("activate", { pluginId: this.id, config: this.request.config() });
      if (this.process !== process) throw new Error("the plugin was unloaded meanwhile");
      if (!this.protocol.activate(answer)) {
        throw new Error(`the activate answer is not valid: ${problemsOf(this.protocol.activate)}`);
      }
      this.declare(answer);
    } catch (error) {
      process.kill("was killed: its activation failed");
      if (this.process === process) this.process = undefined;
      throw new Error(`activation failed: ${errorText(error)}`);
    } finally {
      this.activating = false;
    }
    this.status.nextRetryAt = undefined;
    this.forgetFailuresWhenStable(process);
    this.attachChannel();
    this.setState("running");
    this.request.componentsChanged();
  }

  private forgetFailuresWhenStable(process: PluginProcess): void {
    clearTimeout(this.uptimeTimer);
    this.uptimeTimer = setTimeout(() => {
      if (this.process !== process || this.status.failures === 0) return;
      this.status.failures = 0;
      this.request.statusChanged();
    }, STABLE_UPTIME_MS);
    this.uptimeTimer.unref();
  }

  /** The first activated version (or retry) takes over the plugin's channel, once. */
  private attachChannel(): void {
    if (this.channelAttached) return;
    this.channelAttached = true;
    const plugin = this;
    this.detachChannel = this.deps.channels.attach(this.id, {
      get name() {
        return plugin.channelName;
      },
      send: (chatId, segments) => this.channelSend(chatId, segments),
    });
  }

  private declare(answer: ActivateAnswer): void {
    const taken = new Set<string>();
    const skipped: string[] = [];
    const declared: Built<Component>[] = [
      ...this.buildEach("tool", answer.tools, taken, skipped, (tool: ToolDeclaration) => this.tool(tool)),
      ...this.buildEach("hook", answer.hooks, taken, skipped, (hook: HookDeclaration, index) =>
        this.hook(hook, index),
      ),
      ...this.buildEach("enricher", answer.enrichers, taken, skipped, (enricher: EnricherDeclaration) =>
        this.enricher(enricher),
      ),
      ...this.buildEach(
        "reply_extension",
        answer.reply_extensions,
        taken,
        skipped,
        (extension: ReplyExtensionDeclaration) => this.replyExtension(extension),
      ),
    ];
    this.noteSkipped(skipped);
    this.declared = declared;
    const provider = answer.channel_provider;
    this.provider = provider
      ? {
          name: provider.name || this.id,
          ...(provider.config_schema === undefined ? {} : { configSchema: provider.config_schema }),
        }
      : undefined;
  }

  /**
   * Builds each declaration of one list; a bad one (wrong shape, no description, parameters
   * that do not compile, a name already taken) is left out and the rest load.
   */
  private buildEach<T>(
    kind: DeclarationKind,
    list: unknown[] | null | undefined,
    taken: Set<string>,
    skipped: string[],
    build: (declaration: T, index: number) => Built<Component>,
  ): Built<Component>[] {
    const validate = this.protocol.declaration[kind];
    const built: Built<Component>[] = [];
    (list ?? []).forEach((declaration, index) => {
      try {
        if (!validate(declaration)) throw new Error(problemsOf(validate, "the declaration"));
        const one = build(declaration as T, index);
        const key = `${one.component.kind}:${one.component.name}`;
        if (taken.has(key)) throw new Error(`the name "${one.component.name}" is declared twice`);
        taken.add(key);
        built.push(one);
      } catch (error) {
        skipped.push(`${declarationLabel(kind, declaration, index)}: ${errorText(error)}`);
      }
    });
    return built;
  }

  /** A log line for each left-out declaration; together they are the status's last error, for the console. */
  private noteSkipped(skipped: string[]): void {
    if (skipped.length === 0) return;
    for (const problem of skipped) this.logger.warn(`plugin declaration skipped: ${problem}`);
    this.status.lastError = `declarations skipped: ${skipped.join("; ")}`;
    this.status.lastErrorAt = Date.now();
  }

  /**
   * The process can no longer answer (crash, stdout closed, a call timed out): what it
   * declared goes now (its guards excepted), before its waiting calls fail, so the turn's
   * next planner request already lacks its tools.
   */
  private closed(reason: string): void {
    clearTimeout(this.uptimeTimer);
    this.forgetDeclarations();
    this.status.lastError = reason;
    this.status.lastErrorAt = Date.now();
    this.setState("errored", reason);
    this.request.componentsChanged();
  }

  /** The process is gone: the next activation is scheduled (a restart never overlaps the old process). */
  private lost(reason: string): void {
    this.process = undefined;
    this.logger.error({ reason }, `plugin process ${reason}`);
    this.failed(reason);
  }

  private forgetDeclarations(): void {
    // Guards stay while the process is down: asked, they fail and so deny (agent/hooks.ts),
    // rather than vanish and let through what they guard.
    this.declared = this.declared.filter(
      ({ component }) => component.kind === "hook" && isGuardEvent(component.event),
    );
    this.channelTools = [];
    this.widgets = undefined;
    this.removePrompt();
    this.removePrompt = () => {};
  }

  /** An activation (the first one or a retry) failed: what it declared goes, and the failure counts. */
  private activationFailed(error: unknown): void {
    if (this.unloading) return;
    const reason = errorText(error);
    this.forgetDeclarations();
    this.logger.error(`plugin ${reason}`);
    this.failed(reason);
    this.request.componentsChanged();
  }

  /**
   * Records a failure and schedules the next activation, unless retries are off or used up
   * (then the process state is `failed` until the plugin is reloaded or enabled again).
   */
  private failed(reason: string): void {
    const { autoRetry, maxRetries } = this.request.manifest;
    this.status.failures++;
    this.status.lastError = reason;
    this.status.lastErrorAt = Date.now();
    this.status.pid = undefined;
    if (!autoRetry || (maxRetries > 0 && this.status.failures > maxRetries)) {
      this.status.nextRetryAt = undefined;
      this.logger.error(
        autoRetry
          ? `plugin process not restarted: it failed ${this.status.failures} times in a row (maxRetries ${maxRetries})`
          : "plugin process not restarted: autoRetry is off",
      );
      this.setState("failed", reason);
      return;
    }
    const delay = retryDelayMs(this.status.failures);
    this.status.nextRetryAt = Date.now() + delay;
    this.logger.info(
      { delayMs: delay, attempt: this.status.failures },
      `plugin process restarts in ${delay} ms`,
    );
    this.retryTimer = setTimeout(() => void this.retry(), delay);
    this.retryTimer.unref();
    this.setState("errored", reason);
  }

  private async retry(): Promise<void> {
    if (this.unloading) return;
    this.status.restarts++;
    this.status.nextRetryAt = undefined;
    this.setState("restarting");
    try {
      await this.activate();
      this.logger.info({ restarts: this.status.restarts }, "plugin process restarted");
    } catch (error) {
      this.activationFailed(error);
    }
  }

  private setState(state: ProcessStatus["state"], reason?: string): void {
    this.status.state = state;
    this.deps.monitor.emit({
      type: "plugin.process",
      data: {
        plugin: this.id,
        state,
        pid: this.status.pid ?? null,
        restarts: this.status.restarts,
        ...(reason ? { reason } : {}),
      },
    });
    this.request.statusChanged();
  }

  private call(method: string, params: JsonObject, options: CallOptions = {}): Promise<JsonObject> {
    const process = this.process;
    if (!process) {
      const why = this.status.lastError ? ` (${this.status.lastError})` : "";
      return Promise.reject(new Error(`the plugin ${this.id} is not running${why}`));
    }
    return process.call(method, params, options);
  }

  // ——— pushes ———

  private onPush(method: string, params: JsonObject): void {
    if (!isPushMethod(method)) {
      this.logger.warn({ method }, `plugin pushed the unknown method "${method}"; skipped`);
      return;
    }
    const validate = this.protocol.push[method];
    if (!validate(params)) {
      this.logger.warn({ method }, `plugin pushed an invalid ${method}; skipped: ${problemsOf(validate)}`);
      return;
    }
    switch (method) {
      case "channel_inbound":
        this.deps.channels.receive(this.id, params as unknown as ChannelInbound);
        return;
      case "channel_tools":
        this.declareChannelTools((params as unknown as ChannelToolsPush).tools);
        return;
      case "channel_prompt":
        this.removePrompt();
        this.removePrompt = this.deps.systemParts.add(
          channelSessionPrefix(this.id),
          (params as unknown as ChannelPromptPush).system_parts,
        );
        return;
      case "web_ui":
        this.widgets = (params as unknown as WebUiPush).widgets;
        this.request.statusChanged();
        return;
    }
  }

  /** A new `channel_tools` declaration replaces the previous one; a bad tool in it is left out alone. */
  private declareChannelTools(tools: unknown[]): void {
    const taken = new Set(this.declared.map(({ component }) => `${component.kind}:${component.name}`));
    const skipped: string[] = [];
    this.channelTools = this.buildEach("tool", tools, taken, skipped, (tool: ToolDeclaration) =>
      this.tool(tool, channelSessionPrefix(this.id)),
    );
    this.noteSkipped(skipped);
    this.request.componentsChanged();
  }

  private async channelSend(chatId: string, segments: Segment[]): Promise<string | undefined> {
    const answer = await this.call("channel_send", {
      chatId,
      text: renderSegments(segments),
      segments: segments.map(({ type, data }) => ({ type, data })),
    });
    const messageId = answer.message_id ?? answer.messageId;
    return typeof messageId === "string" || typeof messageId === "number" ? String(messageId) : undefined;
  }

  // ——— components ———

  private tool(declaration: ToolDeclaration, sessionPrefix?: string): Built<ToolComponent> {
    const { name, description, parameters, ...options } = declaration;
    const built = buildTool(
      { pluginId: this.id, name },
      {
        ...(options as ComponentOptions),
        description: description ?? "",
        parameters: (parameters ?? undefined) as ParametersDeclaration | undefined,
      },
      this.request.manifest.timeout,
      this.request.ajv,
      async (args, call) => {
        // xbot sends the arguments as one JSON string; a missing result is an empty one (Go's omitempty).
        const input = JSON.stringify(args);
        const answer = await this.call(
          "execute_tool",
          { toolName: name, input },
          { timeoutMs, signal: call.signal },
        );
        return answer.result ?? "";
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    if (sessionPrefix !== undefined) built.component.scope = { ...built.component.scope, sessionPrefix };
    return built;
  }

  /** A hook of an event this host never fires (xbot knows more) throws, so it is left out with a log line. */
  private hook(declaration: HookDeclaration, index: number): Built<Component> {
    const { event, matcher, name, ...options } = declaration;
    const built = buildHook(
      { pluginId: this.id, name: name ?? `${event}_${index + 1}` },
      {
        ...(options as ComponentOptions),
        timeout_ms: this.callLimit(options),
        event: event as HookEventName,
        ...(matcher ? { matcher } : {}),
      },
      async (input, call) => {
        const answer = await this.call("hook", this.hookParams(input, call), {
          timeoutMs,
          signal: call.signal,
        });
        // xbot's code reads hook_result, its docs write hookResult: both count; neither = allow.
        return (answer.hook_result ?? answer.hookResult ?? undefined) as HookResult | undefined;
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    return built;
  }

  private hookParams(input: HookInput, call: CallContext): JsonObject {
    return {
      event: input.event,
      toolName: input.tool_name ?? "",
      toolInput: input.tool_input === undefined ? "" : JSON.stringify(input.tool_input),
      ...chatParams(call.event, this.deps.channels),
      replyId: input.reply_id ?? "",
      ...(input.tool_output === undefined ? {} : { toolOutput: input.tool_output }),
      ...(input.error === undefined ? {} : { error: input.error }),
      ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.reason === undefined ? {} : { reason: input.reason }),
    };
  }

  /** A reply extension (DESIGN §7): `reply_extension` requests carry `extensionName` beside the payload's fields. */
  private replyExtension(declaration: ReplyExtensionDeclaration): Built<Component> {
    const { name, ...options } = declaration;
    const built = buildReplyExtension(
      { pluginId: this.id, name },
      { ...(options as unknown as ReplyExtensionOptions), timeout_ms: this.callLimit(options) },
      this.request.ajv,
      async (payload, call) => {
        const params = { extensionName: name, ...payload };
        const answer = await this.call("reply_extension", params, { timeoutMs, signal: call.signal });
        return replyExtensionResult(answer);
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    return built;
  }

  private enricher(declaration: EnricherDeclaration): Built<Component> {
    const { name, description, ...options } = declaration;
    const built = buildEnricher(
      { pluginId: this.id, name },
      {
        ...(options as ComponentOptions),
        timeout_ms: this.callLimit(options),
        ...(description === undefined ? {} : { description }),
      },
      async (call) => {
        const params = {
          enricherName: name,
          ...chatParams(call.event, this.deps.channels),
          replyId: call.replyId ?? "",
        };
        const answer = await this.call("enrich", params, { timeoutMs, signal: call.signal });
        return answer.result as string | undefined;
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    return built;
  }

  /**
   * A component's call limit: its declared `timeout_ms`, else the manifest's `timeout`, the
   * limit of every call to the plugin (not an in-process hook's 5 s or enricher's 3 s).
   */
  private callLimit(options: JsonObject): number {
    return (options.timeout_ms as number | undefined) ?? this.request.manifest.timeout;
  }
}

/**
 * The plugin call's own limit decides (the call fails and the process restarts); the host's
 * runner gets a little longer, only to guard against a call that never settles. Returns the
 * call's limit.
 */
function leaveTheLimitToTheCall(component: { timeoutMs: number }): number {
  const limit = component.timeoutMs;
  component.timeoutMs = limit + EXECUTOR_MARGIN_MS;
  return limit;
}

/**
 * What a reply extension's handler returned: the answer's `result` object or, leniently, the
 * answer's own `extra_prompt` / `messages`. The reply stage checks it like any handler's.
 */
function replyExtensionResult(answer: JsonObject): unknown {
  if (isJsonObject(answer.result)) return answer.result;
  const { extra_prompt, messages } = answer;
  return {
    ...(extra_prompt === undefined ? {} : { extra_prompt }),
    ...(messages === undefined ? {} : { messages }),
  };
}

/** `entry` split on whitespace; no shell is involved. */
export function commandLine(entry: string): string[] {
  return entry.trim().split(/\s+/u);
}

/** How a log line names a declaration: its kind and name, else its place in the list. */
function declarationLabel(kind: DeclarationKind, declaration: unknown, index: number): string {
  const named = isJsonObject(declaration) ? (declaration.name ?? declaration.event) : undefined;
  return typeof named === "string" && named ? `${kind} "${named}"` : `${kind} #${index + 1}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
