import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Ajv } from "ajv";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type {
  DeclaredPlugin,
  LoadedPlugin,
  PluginRuntime,
  ProcessIsolation,
  ProcessStatus,
  RuntimeDetails,
  RuntimeLoadRequest,
} from "../plugins/runtime-kit.ts";
import type { McpServerSettings, McpSettings } from "./config.ts";
import { buildMcpTool, type McpToolEntry } from "./mcp-tools.ts";
import type { ServerConnection } from "./server-connection.ts";
import type { McpServerStatus } from "./status.ts";
import { mcpOwnerId, serverIdOf } from "./tool-names.ts";

export interface McpRuntimeDeps {
  /** The `mcp` section of the config in force. */
  settings: () => McpSettings;
  /** A fresh schema compiler for each tools/list answer (servers may reuse `$id`s). */
  createAjv: () => Ajv;
  /** Starts stdio servers' processes (shared with the stdio plugins). */
  isolation: ProcessIsolation;
  /** The secret values of the bot's config, redacted from stdio servers' stderr. */
  secrets: () => readonly string[];
  monitor: Monitor;
  logger: Logger;
}

/** A loaded server: its connection and the tools it listed last (those that could not be built too). */
export interface LiveServer {
  connection: ServerConnection;
  tools(): McpToolEntry[];
}

/**
 * `runtime: "mcp"`: each server of `mcp.servers` is a plugin (`mcp:<id>`) the plugin host
 * loads like a folder's, so `plugins.disabled`, `/plugins`, the console's plugin page, the
 * states, errors and disposers are the plugins'. A loaded version is one connection; its
 * components are the tools the server lists, replaced whenever the list changes (none while
 * it is down).
 */
export class McpRuntime implements PluginRuntime {
  /** The loaded version of each server, by server id. */
  private readonly live = new Map<string, LiveServer>();

  constructor(private readonly deps: McpRuntimeDeps) {}

  /** The servers of the config as plugins to declare to the plugin host. */
  declared(): DeclaredPlugin[] {
    return this.deps.settings().servers.map((server) => ({
      manifest: {
        id: mcpOwnerId(server.id),
        name: server.id,
        version: "",
        description: `MCP server (${transportOf(server)})`,
        runtime: "mcp",
        entry: targetOf(server),
        timeout: server.timeoutMs,
        config: { type: "object", properties: {} },
        autoRetry: true,
        maxRetries: 0,
        env: [],
        network: true,
      },
      dir: targetOf(server),
      enabled: server.enabled,
      revision: JSON.stringify(server),
    }));
  }

  /** The loaded version of a server, if it is loaded. */
  server(serverId: string): LiveServer | undefined {
    return this.live.get(serverId);
  }

  async load(request: RuntimeLoadRequest): Promise<LoadedPlugin> {
    const serverId = serverIdOf(request.manifest.id) ?? "";
    const settings = this.deps.settings().servers.find((server) => server.id === serverId);
    if (!settings) throw new Error(`no MCP server "${serverId}" in mcp.servers`);
    // The MCP SDK (and its schemas, built when loaded) loads with the first server: a bot
    // without MCP servers never starts slower for it.
    const { ServerConnection } = await import("./server-connection.ts");
    let tools: McpToolEntry[] = [];
    const connection: ServerConnection = new ServerConnection({
      settings,
      toolsChanged: (listed) => {
        tools = this.built(settings, listed, connection);
        request.componentsChanged();
      },
      statusChanged: () => request.statusChanged(),
      monitor: this.deps.monitor,
      logger: this.deps.logger.child({ stage: "mcp", server: serverId }),
      pingIntervalMs: () => this.deps.settings().pingIntervalMs,
      isolation: this.deps.isolation,
      secrets: this.deps.secrets,
    });
    const live: LiveServer = { connection, tools: () => tools };
    this.live.set(serverId, live);
    connection.start();
    return {
      get components() {
        return tools.flatMap((entry) =>
          "component" in entry ? [{ component: entry.component, enabled: true }] : [],
        );
      },
      configChanged: async () => {},
      unload: async () => {
        if (this.live.get(serverId) === live) this.live.delete(serverId);
        await connection.stop();
      },
      details: () => pluginDetails(connection.status, settings),
    };
  }

  private built(settings: McpServerSettings, listed: Tool[], connection: ServerConnection): McpToolEntry[] {
    const ajv = this.deps.createAjv();
    const call = (name: string, args: Record<string, unknown>, signal: AbortSignal) =>
      connection.callTool(name, args, signal);
    const entries = listed.map((tool) => buildMcpTool(settings, tool, ajv, call));
    for (const entry of entries) {
      if ("error" in entry) {
        this.deps.logger.warn(
          { server: settings.id, tool: entry.tool.name },
          `MCP tool not offered: ${entry.error}`,
        );
      }
    }
    return entries;
  }
}

export function transportOf(server: McpServerSettings): McpServerStatus["transport"] {
  return server.command ? "stdio" : server.transport;
}

/** The command line or the URL. */
export function targetOf(server: McpServerSettings): string {
  return server.command ? server.command.join(" ") : (server.url ?? "");
}

const PROCESS_STATES: Record<McpServerStatus["state"], ProcessStatus["state"]> = {
  connecting: "starting",
  connected: "running",
  down: "errored",
  disabled: "stopped",
};

/** The connection as a plugin's status shows a process: what the server calls itself, its state and errors. */
function pluginDetails(server: Omit<McpServerStatus, "tools">, settings: McpServerSettings): RuntimeDetails {
  const state =
    server.state === "connecting" && server.restarts > 0 ? "restarting" : PROCESS_STATES[server.state];
  return {
    ...(server.serverName === undefined ? {} : { name: server.serverName }),
    ...(server.serverVersion === undefined ? {} : { version: server.serverVersion }),
    ...(server.launch ? { launch: server.launch } : {}),
    process: {
      state,
      command: settings.command ?? [server.target],
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
