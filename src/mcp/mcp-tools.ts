import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Ajv } from "ajv";
import { buildTool } from "../components/builders.ts";
import type { PluginToolComponent } from "../components/types.ts";
import type { JsonSchema } from "../sdk/types.ts";
import { isRecord } from "../util/values.ts";
import type { McpServerSettings } from "./config.ts";
import { mcpOwnerId, modelToolName } from "./tool-names.ts";
import { plannerResult } from "./tool-result.ts";

/** Calls one tool of the server by its MCP name, bounded by `signal`. */
export type McpToolCaller = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<CallToolResult>;

/** One MCP tool as the host registers it, or why it could not be. */
export type McpToolEntry =
  | { tool: Tool; component: PluginToolComponent }
  | { tool: Tool; error: string; modelName: string; fullName: string };

/**
 * An MCP tool as a plugin tool: named `mcp__<server>__<tool>` for the model and
 * `mcp:<server>.<tool>` for switches, scoped and timed as its server's settings say, and its
 * arguments checked against the schema the server declared (the same Ajv checks plugin tools
 * get) before the server is called.
 */
export function buildMcpTool(
  server: McpServerSettings,
  tool: Tool,
  ajv: Ajv,
  call: McpToolCaller,
): McpToolEntry {
  const owner = mcpOwnerId(server.id);
  const modelName = modelToolName(server.id, tool.name);
  const fullName = `${owner}.${tool.name}`;
  try {
    const built = buildTool(
      { pluginId: owner, name: modelName },
      {
        description: tool.description?.trim() || tool.title || tool.name,
        parameters: declaredParameters(tool.inputSchema),
        timeout_ms: server.timeoutMs,
        chat_scope: server.chatScope,
        ...(server.allowedSessions ? { allowed_session: server.allowedSessions } : {}),
      },
      server.timeoutMs,
      ajv,
      async (args, context) => plannerResult(await call(tool.name, args, context.signal)),
    );
    return { tool, component: { ...built.component, fullName } };
  } catch (error) {
    return { tool, error: error instanceof Error ? error.message : String(error), modelName, fullName };
  }
}

/** Most nested `$ref`s followed when inlining a schema's definitions (a cycle stops here). */
const MAX_REF_DEPTH = 8;

/**
 * The input schema as declared to the model: without `$schema` (Ajv and some providers refuse
 * dialects they do not know), and with local references to `$defs` / `definitions` written
 * out, since providers cannot follow references (servers generated from Pydantic models use them).
 */
export function declaredParameters(inputSchema: Tool["inputSchema"]): JsonSchema {
  const { $schema: _dialect, $defs, definitions, ...schema } = inputSchema as Record<string, unknown>;
  const defs = { ...(isRecord(definitions) ? definitions : {}), ...(isRecord($defs) ? $defs : {}) };
  return inline(schema, defs, 0) as JsonSchema;
}

function inline(value: unknown, defs: Record<string, unknown>, depth: number): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(item, defs, depth));
  if (!isRecord(value)) return value;
  const ref = value.$ref;
  if (typeof ref === "string" && depth < MAX_REF_DEPTH) {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
    const target = name === undefined ? undefined : defs[decodeURIComponent(name)];
    if (target !== undefined) {
      const { $ref: _ref, ...rest } = value;
      return inline({ ...(target as Record<string, unknown>), ...rest }, defs, depth + 1);
    }
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(item, defs, depth)]));
}
