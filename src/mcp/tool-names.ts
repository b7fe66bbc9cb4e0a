import { createHash } from "node:crypto";
import { MCP_OWNER_PREFIX, MCP_TOOL_PREFIX } from "../components/tool-registry.ts";

/** Longest function name every provider accepts. */
const MAX_NAME = 64;

/** The owner of a server's components, as `plugins.disabled` and `/plugins` name it: `mcp:<serverId>`. */
export function mcpOwnerId(serverId: string): string {
  return `${MCP_OWNER_PREFIX}${serverId}`;
}

/** The server id of an owner id, or undefined when the id is not an MCP server's. */
export function serverIdOf(ownerId: string): string | undefined {
  return ownerId.startsWith(MCP_OWNER_PREFIX) ? ownerId.slice(MCP_OWNER_PREFIX.length) : undefined;
}

/**
 * The name the model calls an MCP tool by: `mcp__<serverId>__<tool>`, a valid function name
 * for every provider. A tool name with other characters (MCP allows dots) or too long gets a
 * short hash of itself at the end, so two tools of a server never share a name.
 */
export function modelToolName(serverId: string, toolName: string): string {
  const cleaned = toolName.replace(/[^A-Za-z0-9_-]/g, "_");
  const name = `${MCP_TOOL_PREFIX}${serverId}__${cleaned}`;
  if (cleaned === toolName && name.length <= MAX_NAME) return name;
  const hash = createHash("sha256").update(toolName).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}
