import type { Built } from "../../components/builders.ts";
import { isGuardEvent } from "../../components/hooks.ts";
import type { SystemPartsRegistry } from "../../components/system-parts.ts";
import type { Component } from "../../components/types.ts";
import { redactSecrets } from "../../log/logger.ts";
import type { Monitor } from "../../monitor/monitor.ts";
import { secretValues } from "../../schema/secret-paths.ts";
import { errorMessage } from "../../util/values.ts";
import { type LaunchPlan, type ProcessIsolation, pluginDataFolder } from "../isolation/process-isolation.ts";
import type { RuntimeLoadRequest } from "../runtime.ts";
import type { LaunchMode, RuntimeDetails } from "../status-types.ts";
import { CallsInFlight } from "./calls-in-flight.ts";
import type { StdioChannels } from "./channel-adapter.ts";
import { ComponentFactory } from "./component-factory.ts";
import { Declarations } from "./declarations.ts";
import type { Launch } from "./launch.ts";
import { PluginChannel } from "./plugin-channel.ts";
import { type CallOptions, PluginProcess, pluginEnvironment } from "./plugin-process.ts";
import { type ActivateAnswer, type JsonObject, type ProtocolValidators, problemsOf } from "./protocol.ts";
import { ProcessSupervisor } from "./supervision.ts";

export { commandLine, retryDelayMs, STABLE_UPTIME_MS } from "./supervision.ts";

/** How long a process may take to exit after `deactivate` before it is killed. */
export const DEACTIVATE_GRACE_MS = 5_000;

export interface StdioPluginDeps {
  channels: StdioChannels;
  systemParts: SystemPartsRegistry;
  monitor: Monitor;
  /** How the manifest becomes a process: `stdio` runs `entry`, `python` the SDK's runner. */
  launch: Launch;
  /** Starts the process as `plugins.sandbox` says for a plugin `trusted` or not. */
  isolation: ProcessIsolation;
  /** Listed in `plugins.trusted`. */
  trusted: (pluginId: string) => boolean;
  /** The secret values of the bot's config, redacted from the plugin's stderr. */
  secrets: () => readonly string[];
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
  private readonly supervisor: ProcessSupervisor;
  private readonly declarations: Declarations;
  private readonly channel: PluginChannel;
  private readonly launch: ReturnType<Launch>;
  /** How the latest process was started. */
  private launchMode: LaunchMode | undefined;

  constructor(
    private readonly request: RuntimeLoadRequest,
    private readonly deps: StdioPluginDeps,
    private readonly protocol: ProtocolValidators,
  ) {
    this.launch = deps.launch(request.manifest);
    this.supervisor = new ProcessSupervisor(request, deps.monitor, this.launch.command);
    const call = (method: string, params: JsonObject, options?: CallOptions) =>
      this.call(method, params, options);
    const inFlight = new CallsInFlight(request.logger, request.manifest.id);
    this.declarations = new Declarations(
      this.protocol,
      new ComponentFactory(request, deps.channels, call, inFlight),
      request.logger,
      (text) => this.supervisor.noteError(text),
    );
    this.channel = new PluginChannel({
      request,
      channels: deps.channels,
      systemParts: deps.systemParts,
      protocol: this.protocol,
      declarations: this.declarations,
      call,
      declared: () => this.declared,
      inFlight,
      replaceTools: (tools) => this.replaceTools(tools),
      notify: (method, params) => this.process?.notify(method, params),
    });
  }

  get components(): Built<Component>[] {
    return [...this.declared, ...this.channel.tools];
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
      this.channel.withdrawPrompt();
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
    this.supervisor.stop();
    this.channel.detach();
    this.channel.withdrawPrompt();
    const process = this.process;
    this.process = undefined;
    this.supervisor.setState("stopped");
    // A process still activating was never activated: it is ended, not sent `deactivate`
    // behind its unanswered `activate` (which would only wait out the grace).
    if (process && this.activating) await process.terminate("was killed: unloaded while activating");
    else await process?.shutdown(DEACTIVATE_GRACE_MS);
  }

  details(): RuntimeDetails {
    return {
      process: { ...this.supervisor.status },
      ...(this.launchMode ? { launch: this.launchMode } : {}),
      ...this.channel.details(),
    };
  }

  private get logger() {
    return this.request.logger;
  }

  /** Starts a process and activates it; on failure the process is ended and the error thrown. */
  private async activate(): Promise<void> {
    const { manifest } = this.request;
    this.activating = true;
    let process: PluginProcess | undefined;
    try {
      const plan = await this.deps.isolation.prepare({
        command: this.launch.command,
        cwd: this.request.dir,
        dataFolder: pluginDataFolder(this.request.dir),
        env: { ...pluginEnvironment(globalThis.process.env, manifest.env), ...this.launch.env },
        trusted: this.deps.trusted(manifest.id),
        network: manifest.network,
      });
      if (this.unloading) throw new Error("the plugin was unloaded meanwhile");
      this.launchMode = plan.mode;
      process = this.startProcess(plan);
      const answer = await process.call("activate", { pluginId: manifest.id, config: this.request.config() });
      if (this.process !== process) throw new Error("the plugin was unloaded meanwhile");
      if (!this.protocol.activate(answer)) {
        throw new Error(`the activate answer is not valid: ${problemsOf(this.protocol.activate)}`);
      }
      this.declare(answer);
    } catch (error) {
      process?.kill("was killed: its activation failed");
      if (process && this.process === process) this.process = undefined;
      throw new Error(`activation failed: ${errorMessage(error)}`);
    } finally {
      this.activating = false;
    }
    this.supervisor.activated(() => this.process === process);
    this.channel.attach();
    this.supervisor.setState("running");
    this.request.componentsChanged();
  }

  private startProcess(plan: LaunchPlan): PluginProcess {
    const process: PluginProcess = new PluginProcess({
      plan,
      redact: (text) => redactSecrets(text, this.secrets()),
      timeoutMs: this.request.manifest.timeout,
      logger: this.logger,
      push: (method, params) => {
        if (this.process === process) this.channel.receive(method, params);
      },
      closed: (reason) => {
        if (this.process === process && !this.activating && !this.unloading) this.closed(reason);
      },
      ended: (reason) => {
        if (this.process === process && !this.activating && !this.unloading) this.lost(reason);
      },
    });
    this.process = process;
    this.supervisor.started(process.pid);
    return process;
  }

  /** The bot's secrets and those of the plugin's own config (its schema's `writeOnly`/`password` fields), longest first. */
  private secrets(): string[] {
    const own = secretValues(this.request.manifest.config, this.request.config());
    return [...this.deps.secrets(), ...own].sort((a, b) => b.length - a.length);
  }

  private declare(answer: ActivateAnswer): void {
    this.declared = this.declarations.ofActivation(answer);
    this.channel.declareProvider(answer.channel_provider);
  }

  /** A `tools` push (a `refresh_tools` over stdio): the tools it lists replace the declared ones. */
  private replaceTools(tools: unknown[]): void {
    const others = this.declared.filter(({ component }) => component.kind !== "tool");
    this.declared = [...others, ...this.declarations.ofTools(tools, others)];
    this.request.componentsChanged();
  }

  /**
   * The process can no longer answer (crash, stdout closed, a call timed out): what it
   * declared goes now (its guards excepted), before its waiting calls fail, so the turn's
   * next planner request already lacks its tools.
   */
  private closed(reason: string): void {
    this.supervisor.stopUptimeClock();
    this.forgetDeclarations();
    this.supervisor.noteError(reason);
    this.supervisor.setState("errored", reason);
    this.request.componentsChanged();
  }

  /** The process is gone: the next activation is scheduled (a restart never overlaps the old process). */
  private lost(reason: string): void {
    this.process = undefined;
    this.logger.error({ reason }, `plugin process ${reason}`);
    this.failed(reason);
  }

  private forgetDeclarations(): void {
    // Guards stay while the process is down: asked, they fail and so deny (components/hooks.ts),
    // rather than vanish and let through what they guard.
    this.declared = this.declared.filter(
      ({ component }) => component.kind === "hook" && isGuardEvent(component.event),
    );
    this.channel.forget();
  }

  /** An activation (the first one or a retry) failed: what it declared goes, and the failure counts. */
  private activationFailed(error: unknown): void {
    if (this.unloading) return;
    const reason = errorMessage(error);
    this.forgetDeclarations();
    this.logger.error(`plugin ${reason}`);
    this.failed(reason);
    this.request.componentsChanged();
  }

  private failed(reason: string): void {
    this.supervisor.failed(reason, () => void this.retry());
  }

  private async retry(): Promise<void> {
    if (this.unloading) return;
    this.supervisor.restarting();
    try {
      await this.activate();
      this.logger.info({ restarts: this.supervisor.status.restarts }, "plugin process restarted");
    } catch (error) {
      this.activationFailed(error);
    }
  }

  private call(method: string, params: JsonObject, options: CallOptions = {}): Promise<JsonObject> {
    const process = this.process;
    // A process that has not answered `activate` is not the plugin yet: the guards kept from
    // the one before deny rather than ask it (`activate` itself goes to the process directly).
    if (process && this.activating) {
      return Promise.reject(new Error(`the plugin ${this.request.manifest.id} is still activating`));
    }
    if (!process) {
      const { lastError } = this.supervisor.status;
      const why = lastError ? ` (${lastError})` : "";
      return Promise.reject(new Error(`the plugin ${this.request.manifest.id} is not running${why}`));
    }
    return process.call(method, params, options);
  }
}
