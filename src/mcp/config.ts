import { type Static, Type } from "@sinclair/typebox";
import { formattedString, group, milliseconds, stringEnum } from "../schema/fields.ts";
import { type KeyPath, problemAt } from "../schema/key-path.ts";

/** The `mcp` config key: Model Context Protocol servers whose tools join the planner's. */

const serverSchema = Type.Object(
  {
    id: formattedString("plugin-id", {
      description:
        'Server id, unique among MCP servers: its tools are named "mcp__<id>__<tool>" for the model and switched as "mcp:<id>" / "mcp:<id>.<tool>" in plugins.disabled.',
    }),
    enabled: Type.Boolean({ default: true, description: "false: the server is not started or connected." }),
    trusted: Type.Boolean({
      default: false,
      description:
        "Stdio server: true runs it as the bot's own user with no isolation; false (default) starts it as plugins.sandbox says for untrusted plugins.",
    }),
    command: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description:
          "Stdio server: the program and its arguments, e.g. [node, server.mjs], started as a child process (no shell). Give either command or url.",
      }),
    ),
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Stdio server: the folder it starts in (default: the bot's; isolated: a private empty folder). An isolated server sees it read-only.",
      }),
    ),
    // Values are secrets: API keys are what servers usually read from their environment.
    env: Type.Record(Type.String(), Type.String({ writeOnly: true }), {
      default: {},
      description:
        "Stdio server: environment variables added to the basic ones it inherits, as stdio plugins do (PATH, HOME, USER, LANG, LC_*, TZ, temp folders); the bot's own secrets are not passed on.",
    }),
    url: Type.Optional(
      formattedString("http-url", {
        description: "HTTP server: its endpoint, e.g. http://127.0.0.1:8808/mcp. Give either command or url.",
      }),
    ),
    transport: stringEnum(["streamable-http", "sse"], {
      default: "streamable-http",
      description: "HTTP server: streamable-http (current servers) or sse (older ones).",
    }),
    // Header values are secrets: Authorization and the like carry keys.
    headers: Type.Record(Type.String(), Type.String({ writeOnly: true }), {
      default: {},
      description: "HTTP server: headers sent with every request, e.g. Authorization.",
    }),
    timeoutMs: milliseconds("Limit for one tool call", 30_000),
    chatScope: stringEnum(["all", "group", "private"], {
      default: "all",
      description: "Where the server's tools are offered: all chats, group chats or private chats.",
    }),
    allowedSessions: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Only these sessions get the tools: session ids or their "group:<id>" / "private:<id>" tails; absent: every session.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const mcpSchema = group("Model Context Protocol servers: their tools join the planner's.", {
  servers: Type.Array(serverSchema, {
    default: [],
    description: "Each server is a child process speaking stdio (command) or an HTTP endpoint (url).",
  }),
  pingIntervalMs: milliseconds(
    "How often a connected server is pinged; one that does not answer is taken as down and connected again",
    15_000,
    100,
  ),
});

export type McpSettings = Static<typeof mcpSchema>;
export type McpServerSettings = McpSettings["servers"][number];

/** Rules the schema cannot say: one of command / url per server, ids unique. */
export function findMcpProblems(settings: McpSettings): string[] {
  const at = (index: number, key: string): KeyPath => ["mcp", "servers", index, key];
  return settings.servers.flatMap((server, index) => {
    const problems: string[] = [];
    if ((server.command === undefined) === (server.url === undefined)) {
      problems.push(problemAt(at(index, "command"), "give exactly one of command (stdio) and url (HTTP)"));
    }
    if (settings.servers.findIndex((other) => other.id === server.id) < index) {
      problems.push(problemAt(at(index, "id"), `duplicate id "${server.id}"`));
    }
    return problems;
  });
}
