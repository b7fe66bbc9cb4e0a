import type { PluginChangeResult, PluginStatus } from "../plugins/runtime-kit.ts";
import type { McpServerSettings, McpSettings } from "./config.ts";
import type { McpRuntime } from "./mcp-runtime.ts";
import { targetOf, transportOf } from "./mcp-runtime.ts";
import type { McpServerStatus, McpToolStatus } from "./status.ts";
import { mcpOwnerId } from "./tool-names.ts";

export interface McpServersDeps {
  /** The `mcp` section of the config in force. */
  settings: () => McpSettings;
  runtime: McpRuntime;
  /** The plugin host, which loads the servers (`mcp:<id>`) and switches their tools. */
  plugins: {
    get(id: string): PluginStatus | undefined;
    reload(id: string): Promise<PluginChangeResult>;
  };
}

/**
 * The console's MCP page: each configured server's connection and tools (those it could not
 * offer with why), and a restart. The servers themselves are plugins of the plugin host.
 */
export class McpServers {
  constructor(private readonly deps: McpServersDeps) {}

  servers(): McpServerStatus[] {
    return this.deps.settings().servers.map((server) => this.statusOf(server));
  }

  /** Connects a server again now (its process restarted); undefined when there is no such server. */
  async restart(serverId: string): Promise<McpServerStatus | undefined> {
    const server = this.deps.settings().servers.find((candidate) => candidate.id === serverId);
    if (!server) return undefined;
    const live = this.deps.runtime.server(serverId);
    if (live) await live.connection.restart();
    else await this.deps.plugins.reload(mcpOwnerId(serverId));
    return this.statusOf(server);
  }

  private statusOf(server: McpServerSettings): McpServerStatus {
    const plugin = this.deps.plugins.get(mcpOwnerId(server.id));
    const live = plugin?.state === "enabled" ? this.deps.runtime.server(server.id) : undefined;
    if (!live) {
      return {
        id: server.id,
        transport: transportOf(server),
        target: targetOf(server),
        state: "disabled",
        restarts: 0,
        failures: 0,
        tools: [],
      };
    }
    const components = new Map(plugin?.components.map((component) => [component.fullName, component]));
    const tools = live.tools().map((entry): McpToolStatus => {
      const shown =
        "component" in entry
          ? {
              modelName: entry.component.name,
              fullName: entry.component.fullName,
              description: entry.component.description,
            }
          : {
              modelName: entry.modelName,
              fullName: entry.fullName,
              description: entry.tool.description ?? "",
            };
      const registered = components.get(shown.fullName);
      const error = "error" in entry ? entry.error : registered?.error;
      return {
        name: entry.tool.name,
        ...shown,
        enabled: registered?.enabled === true,
        ...(error ? { error } : {}),
      };
    });
    return { ...live.connection.status, tools };
  }
}
