import { fileURLToPath } from "node:url";
import type { BotHarness } from "../support/bot-harness.ts";
import type { RecordedLlmRequest } from "../support/scripted-llm-server.ts";

/** The test MCP server as a stdio child process (test/support/mcp-stdio-server.ts). */
export const STDIO_SERVER_COMMAND = [
  process.execPath,
  "--import",
  // Resolved here: the server may start in a folder where "tsx" would not resolve.
  import.meta.resolve("tsx"),
  fileURLToPath(new URL("../support/mcp-stdio-server.ts", import.meta.url)),
];

/** Waits for the bot to report server `id` in `state` (`mcp.server` monitor events), the `nth` time. */
export async function serverState(
  bot: BotHarness,
  id: string,
  state: "connected" | "down" | "connecting",
  nth = 1,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const matching = () =>
    bot.events.filter(
      (event) => event.type === "mcp.server" && event.data.server === id && event.data.state === state,
    ).length;
  while (matching() < nth) {
    if (Date.now() > deadline)
      throw new Error(`MCP server ${id} was not ${state} (${nth}) in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The text of the tool results in a planner request. */
export function toolResults(request: RecordedLlmRequest): string[] {
  return request.body.messages
    .filter((message) => message.role === "tool")
    .map((message) => String(message.content));
}
