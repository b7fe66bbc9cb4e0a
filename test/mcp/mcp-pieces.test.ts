import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/components/tool-registry.ts";
import type { ToolComponent } from "../../src/components/types.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { declaredParameters } from "../../src/mcp/mcp-tools.ts";
import { modelToolName } from "../../src/mcp/tool-names.ts";
import { plannerResult } from "../../src/mcp/tool-result.ts";
import { Bm25Index } from "../../src/util/bm25.ts";

const PROVIDER_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

describe("MCP tool names for the model", () => {
  it("namespaces by server and keeps every name valid and distinct", () => {
    expect(modelToolName("search", "web_search")).toBe("mcp__search__web_search");
    const dotted = modelToolName("fs", "files.read");
    const underscored = modelToolName("fs", "files_read");
    expect(dotted).not.toBe(underscored);
    expect(dotted).toMatch(PROVIDER_NAME);
    const long = modelToolName(
      "a-very-long-server-id-for-testing",
      "and_an_even_longer_tool_name_that_goes_on",
    );
    expect(long).toMatch(PROVIDER_NAME);
    expect(long.length).toBe(64);
    expect(modelToolName("1st", "x")).toMatch(PROVIDER_NAME);
  });
});

describe("the mcp__ prefix", () => {
  const tool = (pluginId: string, name: string): ToolComponent => ({
    kind: "tool",
    pluginId,
    name,
    fullName: `${pluginId}.${name}`,
    description: "a tool",
    scope: { chatScope: "all" },
    parameters: { type: "object" },
    timeoutMs: 1_000,
    validate: () => undefined,
    invoke: async () => "ok",
  });

  it("belongs to MCP servers' tools: a plugin cannot take it, nor can an MCP tool go without it", () => {
    const registry = new ToolRegistry();
    expect(() => registry.add(tool("weather", "mcp__search__web"))).toThrow(/MCP servers' tools/);
    expect(() => registry.add(tool("mcp:search", "web"))).toThrow(/MCP servers' tools/);
    registry.add(tool("mcp:search", "mcp__search__web"));
    expect(registry.get("mcp:search.mcp__search__web")).toBeDefined();
  });
});

describe("an MCP tool's declared input schema", () => {
  it("drops $schema and writes out local $defs references, which providers cannot follow", () => {
    const schema = declaredParameters({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { where: { $ref: "#/$defs/Place", description: "Where" } },
      required: ["where"],
      $defs: { Place: { type: "object", properties: { city: { type: "string" } } } },
    });
    expect(schema).toEqual({
      type: "object",
      properties: {
        where: { type: "object", properties: { city: { type: "string" } }, description: "Where" },
      },
      required: ["where"],
    });
  });
});

describe("BM25 over tool names and descriptions", () => {
  const tools = [
    { name: "list_calendar_events", text: "List calendar events in the workspace account." },
    { name: "get_weather", text: "Current weather of a city." },
    { name: "search_files", text: "Search files in the drive." },
    { name: "query_stock", text: "查询股票的实时价格" },
  ];
  const index = new Bm25Index(tools, (tool) => `${tool.name} ${tool.text}`);

  it("ranks the tool whose words match best first, in English and Chinese", () => {
    expect(index.search("what is the weather in Paris", 2)[0]?.name).toBe("get_weather");
    expect(index.search("calendarEvents", 1)[0]?.name).toBe("list_calendar_events");
    expect(index.search("股票价格", 1)[0]?.name).toBe("query_stock");
  });

  it("returns nothing for a query sharing no word with any tool", () => {
    expect(index.search("zebra", 3)).toEqual([]);
  });
});

describe("what the planner reads of an MCP result", () => {
  it("cuts very long text, saying how much was left out", () => {
    const text = plannerResult({ content: [{ type: "text", text: "x".repeat(25_000) }] }) as string;
    expect(text).toHaveLength(20_000 + "\n[… 5000 more characters cut]".length);
    expect(text.endsWith("[… 5000 more characters cut]")).toBe(true);
  });

  it("gives structured content as it is when there is no text, and never an empty result", () => {
    expect(plannerResult({ content: [], structuredContent: { temperature: 25 } })).toEqual({
      temperature: 25,
    });
    expect(plannerResult({ content: [] })).toBe("(no content)");
  });
});

describe("the mcp config", () => {
  it("names the server that has both or neither of command and url, a duplicate id, and a bad id", () => {
    const result = validateConfig({
      mcp: {
        servers: [
          { id: "both", command: ["node", "s.mjs"], url: "http://127.0.0.1:1/mcp" },
          { id: "neither" },
          { id: "both", url: "http://127.0.0.1:2/mcp" },
        ],
      },
    });
    expect("problems" in result && result.problems).toEqual([
      "mcp.servers[0].command: give exactly one of command (stdio) and url (HTTP)",
      "mcp.servers[1].command: give exactly one of command (stdio) and url (HTTP)",
      'mcp.servers[2].id: duplicate id "both"',
    ]);
    const badId = validateConfig({ mcp: { servers: [{ id: "Bad.Id", url: "http://127.0.0.1:1/mcp" }] } });
    expect("problems" in badId && badId.problems[0]).toContain("mcp.servers[0].id: must be 1-64 lowercase");
  });
});
