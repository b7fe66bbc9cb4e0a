/**
 * An MCP server as the console's MCP page shows it. Type-only, with no runtime imports: the
 * console's front end imports these too.
 */
import type { LaunchMode } from "../components/types.ts";

/**
 * `connecting`: starting the process / opening the session (also after a failure); `connected`:
 * its tools are offered; `down`: it failed and a new attempt is due at `nextRetryAt`;
 * `disabled`: `enabled: false` or switched off in `plugins.disabled`.
 */
export type McpServerState = "connecting" | "connected" | "down" | "disabled";

export interface McpToolStatus {
  /** The tool's name on the server. */
  name: string;
  /** What the model calls it. */
  modelName: string;
  /** `mcp:<server>.<tool>`, the ref `plugins.disabled` and the plugin page use. */
  fullName: string;
  description: string;
  /** Registered: offered to the planner where the server's scope applies. */
  enabled: boolean;
  /** Why it could not be registered (a schema Ajv refuses, a name taken). */
  error?: string;
}

export interface McpServerStatus {
  id: string;
  transport: "stdio" | "streamable-http" | "sse";
  /** The command line or the URL. */
  target: string;
  state: McpServerState;
  /** What the server calls itself in its `initialize` answer, once connected. */
  serverName?: string;
  serverVersion?: string;
  /** A stdio server: how its process was last started (plugins.sandbox, `trusted`). */
  launch?: LaunchMode;
  pid?: number;
  connectedAt?: number;
  /** How often it was connected again after a failure (or a restart from the console). */
  restarts: number;
  /** Failures in a row; the backoff before the next attempt grows with them. */
  failures: number;
  nextRetryAt?: number;
  lastError?: string;
  lastErrorAt?: number;
  tools: McpToolStatus[];
}
