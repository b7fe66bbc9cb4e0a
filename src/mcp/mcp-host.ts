import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Ajv } from "ajv";
import type { ToolRegistry } from "../components/tool-registry.ts";
import type { Disposer } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { PluginSwitches } from "../plugins/component-switches.ts";
import { type ExternalPlugins, pluginIdOf } from "../plugins/external-plugins.ts";
import type { ProcessIsolation } from "../plugins/isolation/process-isolation.ts";
import type { PluginChangeResult } from "../plugins/plugin-status.ts";
import { SerialQueue } from "../plugins/serial-queue.ts";
import type { PluginStatus, ProcessStatus } from "../plugins/status-types.ts";
import { errorMessage } from "../util/values.ts";
import type { McpServerSettings, McpSettings } from "./config.ts";
import { buildMcpTool, type McpToolEntry } from "./mcp-tools.ts";
import type { ServerConnection } from "./server-connection.ts";
import type { McpServerStatus, McpToolStatus } from "./status.ts";
import { mcpOwnerId, serverIdOf } from "./tool-names.ts";

export interface McpHostDeps {
  /** The `mcp` section of the config in force. */
  settings: () => McpSettings;
  /** `plugins.disabled`: "mcp:<id>" switches a server off, "mcp:<id>.<tool>" one tool. */
  disabled: () => readonly string[];
  /** Where the servers' tools are registered, beside the plugins'. */
  tools: Pick<ToolRegistry, "add">;
  /** A fresh schema compiler for each tools/list answer (servers may reuse `$id`s). */
  createAjv: () => Ajv;
  /** Starts stdio servers' processes (shared with the stdio plugins). */
  isolation: ProcessIsolation;
  /** The secret values of the bot's config, redacted from stdio servers' stderr. */
  secrets: () => readonly string[];
  monitor: Monitor;
  logger: Logger;
}

/** One configured server: its connection while it should run, and its tools. */
interface ServerRecord {
  settings: McpServerSettings;
  connection?: ServerConnection;
  tools: McpToolEntry[];
  registrations: Map<string, Disposer>;
  registrationErrors: Map<string, string>;
}

/**
 * The MCP servers of the config: starts a connection per enabled server, registers the tools
 * each lists as plugin tools of the owner `mcp:<id>` (so hooks, the timeline, `/plugins` and
 * the console see them like any plugin's), takes them away while the server is down, and
 * applies config edits (servers added, removed or changed; `plugins.disabled`).
 */
export class McpHost implements ExternalPlugins {
  private readonly records = new Map<string, ServerRecord>();
  private readonly switches: PluginSwitches;
  private readonly listeners = new Set<() => void>();
  /** Config edits, switches and restarts run one at a time. */
  private readonly queue: SerialQueue;
  private stopped = false;

  constructor(private readonly deps: McpHostDeps) {
    this.switches = new PluginSwitches(deps.disabled());
    this.queue = new SerialQueue((error) => deps.logger.error({ err: error }, "MCP host operation failed"));
  }

  /** Starts every enabled server in the background; their tools arrive as each connects. */
  start(): Promise<void> {
    return this.apply();
  }

  /** Applies an edited config: new servers start, removed ones stop, changed ones start over. */
  apply(): Promise<void> {
    return this.queue.run(() => this.applySettings());
  }

  private async applySettings(): Promise<void> {
    if (this.stopped) return;
    this.switches.reset(this.deps.disabled());
    const wanted = new Map(this.deps.settings().servers.map((server) => [server.id, server]));
    for (const [id, record] of [...this.records]) {
      const next = wanted.get(id);
      if (next && JSON.stringify(next) === JSON.stringify(record.settings)) continue;
      await this.disconnect(record);
      this.records.delete(id);
    }
    for (const [id, settings] of wanted) {
      if (!this.records.has(id)) {
        this.records.set(id, {
          settings,
          tools: [],
          registrations: new Map(),
          registrationErrors: new Map(),
        });
      }
      await this.applyRunning(this.records.get(id)!);
    }
    this.changed();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.queue.run(async () => {
      await Promise.all([...this.records.values()].map((record) => this.disconnect(record)));
    });
  }

  /** Every server for the console's MCP page. */
  servers(): McpServerStatus[] {
    return [...this.records.values()].map((record) => this.serverStatus(record));
  }

  /** Connects a server again now (its process restarted); undefined when there is no such server. */
  restart(serverId: string): Promise<McpServerStatus | undefined> {
    return this.queue.run(async () => {
      const record = this.records.get(serverId);
      if (!record) return undefined;
      if (record.connection) await record.connection.restart();
      else await this.applyRunning(record);
      return this.serverStatus(record);
    });
  }

  subscribe(listener: () => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ——— ExternalPlugins: the plugin host's view ———

  owns(id: string): boolean {
    return serverIdOf(id) !== undefined;
  }

  list(): PluginStatus[] {
    return [...this.records.values()].map((record) => this.pluginStatus(record));
  }

  enable(ref: string): Promise<PluginChangeResult> {
    return this.setEnabled(ref, true);
  }

  disable(ref: string): Promise<PluginChangeResult> {
    return this.setEnabled(ref, false);
  }

  async reload(id: string): Promise<PluginChangeResult> {
    const record = this.recordOf(id);
    if (!record) return { ok: false, error: `no plugin "${id}"` };
    await this.restart(record.settings.id);
    return { ok: true, status: this.pluginStatus(record) };
  }

  // ——— internals ———

  private setEnabled(ref: string, enabled: boolean): Promise<PluginChangeResult> {
    return this.queue.run(() => this.switchRef(ref, enabled));
  }

  private async switchRef(ref: string, enabled: boolean): Promise<PluginChangeResult> {
    const owner = pluginIdOf(ref);
    const record = this.recordOf(owner);
    if (!record) return { ok: false, error: `no plugin "${owner}"` };
    const isComponent = ref !== owner;
    if (isComponent && record.connection?.status.state === "connected") {
      if (!record.tools.some((entry) => fullNameOf(entry) === ref)) {
        return {
          ok: false,
          error: `MCP server ${record.settings.id} has no tool "${ref.slice(owner.length + 1)}"`,
        };
      }
    }
    this.switches.set(ref, enabled, isComponent);
    await this.applyRunning(record);
    this.deps.logger.info({ plugin: owner, ref }, enabled ? "enabled" : "disabled");
    this.changed();
    return { ok: true, status: this.pluginStatus(record) };
  }

  private recordOf(ownerId: string): ServerRecord | undefined {
    const serverId = serverIdOf(ownerId);
    return serverId === undefined ? undefined : this.records.get(serverId);
  }

  private shouldRun(record: ServerRecord): boolean {
    return (
      !this.stopped && record.settings.enabled && this.switches.pluginEnabled(mcpOwnerId(record.settings.id))
    );
  }

  /** Starts or stops the server's connection as its switches say, then syncs its tools. */
  private async applyRunning(record: ServerRecord): Promise<void> {
    if (this.shouldRun(record) && !record.connection) {
      // The MCP SDK (and its schemas, built when loaded) loads with the first server: a bot
      // without MCP servers never starts slower for it.
      const { ServerConnection } = await import("./server-connection.ts");
      if (!this.shouldRun(record) || record.connection) return this.syncTools(record);
      const connection = new ServerConnection({
        settings: record.settings,
        toolsChanged: (tools) => this.toolsChanged(record, connection, tools),
        statusChanged: () => this.changed(),
        monitor: this.deps.monitor,
        logger: this.deps.logger.child({ stage: "mcp", server: record.settings.id }),
        pingIntervalMs: () => this.deps.settings().pingIntervalMs,
        isolation: this.deps.isolation,
        secrets: this.deps.secrets,
      });
      record.connection = connection;
      connection.start();
    } else if (!this.shouldRun(record) && record.connection) {
      await this.disconnect(record);
    }
    this.syncTools(record);
  }

  private async disconnect(record: ServerRecord): Promise<void> {
    const connection = record.connection;
    record.connection = undefined;
    record.tools = [];
    this.syncTools(record);
    await connection?.stop();
  }

  private toolsChanged(record: ServerRecord, connection: ServerConnection, tools: Tool[]): void {
    if (record.connection !== connection) return;
    const ajv = this.deps.createAjv();
    const call = (name: string, args: Record<string, unknown>, signal: AbortSignal) =>
      connection.callTool(name, args, signal);
    // The previous list's components go first: a changed tool is registered anew.
    record.tools = [];
    this.syncTools(record);
    record.tools = tools.map((tool) => buildMcpTool(record.settings, tool, ajv, call));
    for (const entry of record.tools) {
      if ("error" in entry) {
        this.deps.logger.warn(
          { server: record.settings.id, tool: entry.tool.name },
          `MCP tool not offered: ${entry.error}`,
        );
      }
    }
    this.syncTools(record);
  }

  /** Registers the tools that should be on, removes the others (synchronous: no turn sees half a list). */
  private syncTools(record: ServerRecord): void {
    const wanted = new Map<string, McpToolEntry>();
    for (const entry of record.tools) {
      if ("component" in entry && this.switches.componentEnabled(entry.component.fullName, true)) {
        wanted.set(entry.component.fullName, entry);
      }
    }
    for (const [fullName, dispose] of [...record.registrations]) {
      if (wanted.has(fullName)) continue;
      dispose();
      record.registrations.delete(fullName);
    }
    record.registrationErrors.clear();
    for (const [fullName, entry] of wanted) {
      if (record.registrations.has(fullName) || !("component" in entry)) continue;
      try {
        record.registrations.set(fullName, this.deps.tools.add(entry.component));
      } catch (error) {
        record.registrationErrors.set(fullName, errorMessage(error));
      }
    }
  }

  private toolStatuses(record: ServerRecord): McpToolStatus[] {
    return record.tools.map((entry) => {
      const fullName = fullNameOf(entry);
      const error = "error" in entry ? entry.error : record.registrationErrors.get(fullName);
      return {
        name: entry.tool.name,
        modelName: "component" in entry ? entry.component.name : entry.modelName,
        fullName,
        description: "component" in entry ? entry.component.description : (entry.tool.description ?? ""),
        enabled: record.registrations.has(fullName),
        ...(error ? { error } : {}),
      };
    });
  }

  private serverStatus(record: ServerRecord): McpServerStatus {
    const tools = this.toolStatuses(record);
    const status = record.connection?.status;
    if (status) return { ...status, tools };
    return {
      id: record.settings.id,
      transport: record.settings.command ? "stdio" : record.settings.transport,
      target: record.settings.command ? record.settings.command.join(" ") : (record.settings.url ?? ""),
      state: "disabled",
      restarts: 0,
      failures: 0,
      tools,
    };
  }

  /** The server as a plugin (`/plugins`, the console's plugin page): its tools are its components. */
  private pluginStatus(record: ServerRecord): PluginStatus {
    const server = this.serverStatus(record);
    const processState: Record<McpServerStatus["state"], ProcessStatus["state"]> = {
      connecting: server.restarts > 0 ? "restarting" : "starting",
      connected: "running",
      down: "errored",
      disabled: "stopped",
    };
    return {
      id: mcpOwnerId(server.id),
      dir: server.target,
      name: server.serverName ?? server.id,
      version: server.serverVersion ?? "",
      description: `MCP server (${server.transport})`,
      runtime: "mcp",
      ...(server.launch ? { launch: server.launch } : {}),
      state: server.state === "disabled" ? "disabled" : "enabled",
      components: server.tools.map((tool) => ({
        kind: "tool",
        name: tool.modelName,
        fullName: tool.fullName,
        description: tool.description,
        enabled: tool.enabled,
        ...(tool.error ? { error: tool.error } : {}),
      })),
      process: {
        state: processState[server.state],
        command: record.settings.command ?? [server.target],
        restarts: server.restarts,
        failures: server.failures,
        ...(server.pid === undefined ? {} : { pid: server.pid }),
        ...(server.nextRetryAt === undefined ? {} : { nextRetryAt: server.nextRetryAt }),
        ...(server.lastError === undefined
          ? {}
          : { lastError: server.lastError, lastErrorAt: server.lastErrorAt }),
        ...(server.connectedAt === undefined ? {} : { startedAt: server.connectedAt }),
      },
    };
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function fullNameOf(entry: McpToolEntry): string {
  return "component" in entry ? entry.component.fullName : entry.fullName;
}
