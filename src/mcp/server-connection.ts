import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { LaunchMode } from "../components/types.ts";
import { type Logger, redactSecrets } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import {
  logStderr,
  outsideSandbox,
  type ProcessIsolation,
  pluginEnvironment,
  retryDelayMs,
  STABLE_UPTIME_MS,
} from "../plugins/runtime-kit.ts";
import { errorMessage } from "../util/values.ts";
import type { McpServerSettings } from "./config.ts";
import type { McpServerStatus } from "./status.ts";

/** Longest wait for a server to start and answer `initialize` (and the first tools/list). */
const CONNECT_TIMEOUT_MS = 30_000;
/** How many of a server's last stderr lines its failure quotes. */
const LAST_WORDS = 3;
const PING_TIMEOUT_MS = 10_000;

export interface ServerConnectionDeps {
  settings: McpServerSettings;
  /** Told the server's tools whenever they change: on connect, on `tools/list_changed`, and [] when it goes down. */
  toolsChanged: (tools: Tool[]) => void;
  statusChanged: () => void;
  monitor: Monitor;
  logger: Logger;
  /** How often a connected server is pinged (`mcp.pingIntervalMs`): an HTTP server that went away is noticed by it. */
  pingIntervalMs: () => number;
  /** Starts a stdio server's process as `plugins.sandbox` says (unless the server is `trusted`). */
  isolation: ProcessIsolation;
  /** The secret values of the bot's config, redacted from a stdio server's stderr. */
  secrets: () => readonly string[];
}

type Status = Omit<McpServerStatus, "tools">;

/**
 * One MCP server: connects (starting the process for a stdio server), lists its tools at
 * connect and on every `notifications/tools/list_changed`, calls them, and supervises the
 * connection. A stdio process that exits, an HTTP server that stops answering (a failed
 * ping or call) or a failed connect takes the server's tools away and schedules a new
 * attempt with the stdio plugins' backoff (1 s, 2 s, 4 s … 30 s), until it connects again.
 */
export class ServerConnection {
  readonly status: Status;
  private client: Client | undefined;
  /** Bumped by every attempt and every loss: callbacks of an older connection are ignored. */
  private generation = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private uptimeTimer: NodeJS.Timeout | undefined;
  /** The tools/list read after the latest `list_changed`. */
  private refreshing: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The last lines its process printed on stderr (redacted), for the reason it died. */
  private lastWords: string[] = [];
  private launchMode: LaunchMode | undefined;

  constructor(private readonly deps: ServerConnectionDeps) {
    const { settings } = deps;
    this.status = {
      id: settings.id,
      transport: settings.command ? "stdio" : settings.transport,
      target: settings.command ? settings.command.join(" ") : (settings.url ?? ""),
      state: "connecting",
      restarts: 0,
      failures: 0,
    };
  }

  get settings(): McpServerSettings {
    return this.deps.settings;
  }

  start(): void {
    void this.connect();
  }

  /** Closes the connection (ending a stdio server's process) and schedules nothing more. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    this.clearTimers();
    await this.closeClient();
  }

  /** Starts connecting again now, forgetting the failures (the console's restart button). */
  async restart(): Promise<void> {
    if (this.stopped) return;
    this.generation++;
    this.clearTimers();
    await this.closeClient();
    this.deps.toolsChanged([]);
    this.status.failures = 0;
    this.status.restarts++;
    void this.connect();
  }

  /** Calls a tool; a transport failure (not an error the server answered) counts as the server going down. */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const client = this.client;
    if (!client) throw new Error(`MCP server ${this.status.id} is not connected`);
    const generation = this.generation;
    try {
      const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
        signal,
        timeout: this.deps.settings.timeoutMs,
      });
      // A call that changed the server's tools (it notified before answering) returns with them in force.
      await this.refreshing;
      return result as CallToolResult;
    } catch (error) {
      if (!(error instanceof McpError) && !signal.aborted) this.lost(generation, errorMessage(error));
      throw error;
    }
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.setState("connecting");
    const client = new Client(
      { name: "tsumugi", version: "1.0.0" },
      {
        listChanged: {
          tools: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => {
              this.refreshing = this.refresh(generation);
            },
          },
        },
      },
    );
    client.onclose = () => this.lost(generation, "connection closed");
    client.onerror = (error) => this.deps.logger.debug({ err: error }, "MCP transport error");
    try {
      const transport = await this.transport();
      if (generation !== this.generation) return;
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      if (generation !== this.generation) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      const tools = await this.listTools(client);
      if (generation !== this.generation) return;
      const info = client.getServerVersion();
      Object.assign(this.status, {
        serverName: info?.name,
        serverVersion: info?.version,
        pid: transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined,
        connectedAt: Date.now(),
        nextRetryAt: undefined,
      });
      this.deps.toolsChanged(tools);
      this.setState("connected");
      this.deps.logger.info({ tools: tools.length }, "MCP server connected");
      this.watch(generation, client);
    } catch (error) {
      // Lost first: closing the client calls its onclose, which would report only "connection closed".
      this.lost(generation, errorMessage(error));
      await client.close().catch(() => {});
    }
  }

  private async transport(): Promise<Transport> {
    const { settings } = this.deps;
    if (settings.command) {
      const plan = await this.deps.isolation.prepare({
        command: settings.command,
        ...(settings.cwd ? { cwd: resolve(settings.cwd) } : {}),
        // The stdio plugins' minimal environment (no API keys of the bot) plus the server's own.
        env: { ...pluginEnvironment(process.env, []), ...settings.env },
        trusted: settings.trusted,
        network: true,
        // The operator wrote this command line: the folders it names are shown.
        commandLineFolders: true,
      });
      this.status.launch = plan.mode;
      const transport = new StdioClientTransport({
        command: plan.file,
        args: plan.args,
        env: plan.env,
        cwd: plan.cwd,
        stderr: "pipe",
      });
      // A server's own diagnostics, kept out of the bot's stderr (and its secrets out of the log).
      const { stderr } = transport;
      this.lastWords = [];
      if (stderr) {
        logStderr(
          stderr,
          (text) => redactSecrets(text, this.deps.secrets()),
          (text) => {
            this.deps.logger.debug({ stream: "stderr" }, text);
            this.lastWords = [...this.lastWords, text].slice(-LAST_WORDS);
          },
        );
      }
      this.launchMode = plan.mode;
      return transport;
    }
    const url = new URL(settings.url ?? "");
    const requestInit = { headers: settings.headers };
    return settings.transport === "sse"
      ? new SSEClientTransport(url, { requestInit })
      : new StreamableHTTPClientTransport(url, { requestInit });
  }

  /** Every page of tools/list. */
  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: CONNECT_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** `tools/list_changed`: the server's tools are read again. */
  private async refresh(generation: number): Promise<void> {
    const client = this.client;
    if (generation !== this.generation || !client) return;
    try {
      const tools = await this.listTools(client);
      if (generation !== this.generation) return;
      this.deps.toolsChanged(tools);
      this.deps.logger.info({ tools: tools.length }, "MCP server changed its tools");
      this.deps.statusChanged();
    } catch (error) {
      this.lost(generation, `tools/list failed: ${errorMessage(error)}`);
    }
  }

  /** Pings the connected server, and forgets its failures once it has stayed up a while. */
  private watch(generation: number, client: Client): void {
    const ping = () => {
      this.pingTimer = setTimeout(async () => {
        try {
          await client.ping({ timeout: PING_TIMEOUT_MS });
          if (generation === this.generation) ping();
        } catch (error) {
          this.lost(generation, `ping failed: ${errorMessage(error)}`);
        }
      }, this.deps.pingIntervalMs());
      this.pingTimer.unref();
    };
    ping();
    this.uptimeTimer = setTimeout(() => {
      if (generation !== this.generation || this.status.failures === 0) return;
      this.status.failures = 0;
      this.deps.statusChanged();
    }, STABLE_UPTIME_MS);
    this.uptimeTimer.unref();
  }

  /** The connection of `generation` failed or ended: tools go away and a new attempt is scheduled. */
  private lost(generation: number, cause: string): void {
    if (generation !== this.generation || this.stopped) return;
    // What a server that died said last, and which paths it named that its sandbox does not show.
    const reason =
      this.lastWords.length === 0
        ? cause
        : `${cause}; it said: ${this.lastWords.join(" / ")}${outsideSandbox(this.lastWords, this.launchMode)}`;
    this.lastWords = [];
    this.generation++;
    this.clearTimers();
    void this.closeClient();
    this.deps.toolsChanged([]);
    this.status.failures++;
    this.status.lastError = reason;
    this.status.lastErrorAt = Date.now();
    this.status.pid = undefined;
    const delay = retryDelayMs(this.status.failures);
    this.status.nextRetryAt = Date.now() + delay;
    // Warned once per outage; the retries of a server that stays down are logged quietly.
    const details = { error: reason, retryInMs: delay };
    if (this.status.failures === 1) this.deps.logger.warn(details, `MCP server down: ${reason}`);
    else this.deps.logger.debug(details, `MCP server still down: ${reason}`);
    this.retryTimer = setTimeout(() => {
      this.status.restarts++;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
    this.setState("down", reason);
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => {});
  }

  private clearTimers(): void {
    clearTimeout(this.retryTimer);
    clearTimeout(this.pingTimer);
    clearTimeout(this.uptimeTimer);
  }

  private setState(state: Status["state"], reason?: string): void {
    this.status.state = state;
    this.deps.statusChanged();
    // A server that keeps failing is retried forever: its retries after the first are not
    // recorded one by one (they would crowd turns out of the timeline); the status shows them.
    if (state !== "connected" && this.status.failures > 1) return;
    this.deps.monitor.emit({
      type: "mcp.server",
      data: { server: this.status.id, state, restarts: this.status.restarts, ...(reason ? { reason } : {}) },
    });
  }
}
