/**
 * A small MCP server written with the official SDK, for tests and the bench: the same tools
 * whether it speaks stdio (mcp-stdio-server.ts) or streamable HTTP (mcp-http-server.ts).
 *
 * - `weather {city}` → "<city>: sunny, 25°C"
 * - `echo {text}` → "echo: <text>"
 * - `slow {}` → never answers (until the client cancels): a hung tool
 * - `fail {}` → an `isError` result
 * - `snapshot {}` → a text part, a PNG picture and an embedded text resource
 * - `whereami {}` → "<cwd> <MCP_MARK>": the folder and environment it was started with
 * - `add_tool {name}` → adds a tool `name` (answering "hello from <name>") and sends
 *   `notifications/tools/list_changed`
 * - `extraTools` more tools named like a SaaS API (`list_calendar_events`, …), for many-tools tests
 * - with `brokenTool`, `broken`, whose input schema Ajv refuses
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

export interface TestMcpServerOptions {
  /** How many generated tools to add beside the fixed ones. */
  extraTools?: number;
  /** Also list `broken`, whose input schema is not valid JSON Schema. */
  brokenTool?: boolean;
}

const ONE_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const FIXED_TOOLS: Tool[] = [
  {
    name: "weather",
    description: "Current weather of a city.",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string", description: "City name" } },
      required: ["city"],
    },
  },
  {
    name: "echo",
    description: "Repeats the text it is given.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  { name: "slow", description: "Takes forever.", inputSchema: { type: "object", properties: {} } },
  { name: "fail", description: "Always reports an error.", inputSchema: { type: "object", properties: {} } },
  {
    name: "snapshot",
    description: "A picture and a note.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "whereami",
    description: "The server's folder and its MCP_MARK variable.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "add_tool",
    description: "Adds a tool to this server.",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
];

/** How many tools the server has before generated ones are added. */
export const FIXED_TOOL_COUNT = FIXED_TOOLS.length;

const VERBS = ["list", "get", "create", "update", "delete", "search", "archive", "export", "share", "sync"];
const NOUNS = [
  "calendar_events",
  "files",
  "issues",
  "contacts",
  "invoices",
  "tickets",
  "playlists",
  "repositories",
  "spreadsheets",
  "notes",
];
const SERVICES = ["workspace", "billing", "tracker", "drive", "crm"];

/** `count` tools named and described like a SaaS API's, each with two parameters. */
export function generatedTools(count: number): Tool[] {
  return Array.from({ length: count }, (_, index) => {
    const verb = VERBS[index % VERBS.length]!;
    const noun = NOUNS[Math.floor(index / VERBS.length) % NOUNS.length]!;
    const service = SERVICES[index % SERVICES.length]!;
    const round = Math.floor(index / (VERBS.length * NOUNS.length));
    const name = `${verb}_${noun}${round > 0 ? `_${round}` : ""}`;
    return {
      name,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${noun.replaceAll("_", " ")} in the ${service} account. Returns the matching records as JSON.`,
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", description: `Which ${noun.replaceAll("_", " ")}` },
          limit: { type: "integer", minimum: 1, maximum: 100, description: "Most records returned" },
        },
        required: ["query"],
      },
    };
  });
}

export function createTestMcpServer(options: TestMcpServerOptions = {}): Server {
  const broken: Tool = {
    name: "broken",
    description: "Declares an invalid schema.",
    inputSchema: { type: "object", properties: { x: { type: "bogus" } } },
  };
  const tools = [
    ...FIXED_TOOLS,
    ...generatedTools(options.extraTools ?? 0),
    ...(options.brokenTool ? [broken] : []),
  ];
  const server = new Server(
    { name: "tsumugi-test-mcp", version: "1.2.3" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = request.params.arguments ?? {};
    const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
    switch (request.params.name) {
      case "weather":
        return text(`${String(args.city)}: sunny, 25°C`);
      case "echo":
        return text(`echo: ${String(args.text)}`);
      case "slow":
        return new Promise((_resolve, reject) => {
          extra.signal.addEventListener("abort", () => reject(new Error("cancelled")));
        });
      case "whereami":
        return text(`${process.cwd()} ${process.env.MCP_MARK ?? "(no mark)"}`);
      case "fail":
        return { content: [{ type: "text", text: "the backend is down" }], isError: true };
      case "snapshot":
        return {
          content: [
            { type: "text", text: "a snapshot" },
            { type: "image", data: ONE_PIXEL_PNG, mimeType: "image/png" },
            { type: "resource", resource: { uri: "memo://1", text: "remember the milk" } },
          ],
        };
      case "add_tool": {
        const name = String(args.name);
        tools.push({
          name,
          description: `Says hello from ${name}.`,
          inputSchema: { type: "object", properties: {} },
        });
        await server.sendToolListChanged();
        return text(`added ${name}`);
      }
      default: {
        const added = tools.find((tool) => tool.name === request.params.name);
        if (!added) return { content: [{ type: "text", text: "unknown tool" }], isError: true };
        return text(`hello from ${added.name}`);
      }
    }
  });
  return server;
}
