import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

/** Longest text result the planner reads: a server returning a whole file must not fill the context. */
const MAX_RESULT_CHARS = 20_000;

/**
 * What the planner reads of an MCP tool's answer: its text parts joined, and a placeholder
 * line for each picture, sound and binary resource (the planner gets text only; a picture an
 * MCP tool returns is not sent to the chat). A result with only structured content is that
 * object. An answer the server marks `isError` becomes a thrown error, so the planner is told
 * the call failed, as with any plugin tool. Text beyond MAX_RESULT_CHARS is cut, saying so.
 */
export function plannerResult(result: CallToolResult): unknown {
  const parts = (result.content ?? []).map(describeBlock);
  const text = limited(parts.join("\n"));
  if (result.isError) throw new Error(text || "the tool reported an error");
  if (text === "" && result.structuredContent !== undefined) return result.structuredContent;
  // Never empty: an empty output would read as "the tool acted itself" and end the turn.
  return text === "" ? "(no content)" : text;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) return `[resource ${resource.uri}]\n${resource.text}`;
      const mime = resource.mimeType ? `${resource.mimeType}, ` : "";
      return `[resource ${resource.uri}: ${mime}${base64Bytes(resource.blob)} bytes]`;
    }
    case "resource_link":
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
    default:
      return "";
  }
}

function limited(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n[… ${text.length - MAX_RESULT_CHARS} more characters cut]`;
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
}
