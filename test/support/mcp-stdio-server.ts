/**
 * The test MCP server (mcp-test-server.ts) over stdio, as a child process:
 * `node --import tsx test/support/mcp-stdio-server.ts`. `MCP_EXTRA_TOOLS` adds generated
 * tools, `MCP_BROKEN_TOOL=1` one with an invalid schema; `MCP_MARK` is echoed by the `whereami` tool so tests see the configured environment.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createTestMcpServer } from "./mcp-test-server.ts";

const server = createTestMcpServer({
  extraTools: Number(process.env.MCP_EXTRA_TOOLS ?? 0),
  brokenTool: process.env.MCP_BROKEN_TOOL === "1",
});
await server.connect(new StdioServerTransport());
process.stderr.write(`test MCP server up (pid ${process.pid})\n`);
