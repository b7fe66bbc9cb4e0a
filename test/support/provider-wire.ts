/**
 * The Gemini `generateContent` and Anthropic `messages` wire formats for the scripted LLM
 * server: requests are read into the Chat Completions shape the server records (so
 * `promptText`, `toolNames` and the request helpers work for every provider type), and
 * scripted answers are written back in the provider's own format.
 */
import type {
  ChatCompletionBody,
  ChatCompletionMessage,
  ChatCompletionTool,
  ChatCompletionToolCall,
} from "./scripted-llm-server.ts";

/** Which API a request used: `openai-compatible`/`openai` speak chat-completions. */
export type ProviderApi = "chat-completions" | "gemini" | "anthropic";

export interface ScriptedReply {
  text: string | null;
  toolCalls: ChatCompletionToolCall[];
  usage: { promptTokens: number; completionTokens: number };
  finishReason?: string;
}

/** The API a POST path belongs to, and the model it names (Gemini puts it in the path). */
export function apiOfPath(path: string): { api: ProviderApi; model?: string } | undefined {
  if (path === "/v1/chat/completions") return { api: "chat-completions" };
  if (path === "/v1/messages") return { api: "anthropic" };
  const gemini = /^\/v1(?:beta)?\/models\/([^/:]+):generateContent$/.exec(path);
  return gemini ? { api: "gemini", model: decodeURIComponent(gemini[1]!) } : undefined;
}

type Json = Record<string, unknown>;

export function readAsChat(api: ProviderApi, body: Json, model: string | undefined): ChatCompletionBody {
  if (api === "gemini") return geminiAsChat(body, model ?? "");
  if (api === "anthropic") return anthropicAsChat(body);
  return body as ChatCompletionBody;
}

export function writeAnswer(api: ProviderApi, model: string, reply: ScriptedReply, index: number): Json {
  if (api === "gemini") return geminiAnswer(reply);
  if (api === "anthropic") return anthropicAnswer(model, reply, index);
  throw new Error(`writeAnswer: ${api} is answered by the server itself`);
}

function geminiAsChat(body: Json, model: string): ChatCompletionBody {
  const messages: ChatCompletionMessage[] = [];
  const system = (body.systemInstruction as { parts?: Array<{ text?: string }> } | undefined)?.parts;
  if (system) messages.push({ role: "system", content: system.map((part) => part.text ?? "").join("\n") });
  for (const content of (body.contents ?? []) as Array<{ role: string; parts: Json[] }>) {
    const text = content.parts.flatMap((part) => (typeof part.text === "string" ? [part.text] : []));
    const calls = content.parts.flatMap((part) => {
      const call = part.functionCall as { name: string; args?: unknown } | undefined;
      return call ? [toolCall(call.name, call.name, call.args)] : [];
    });
    for (const part of content.parts) {
      const result = part.functionResponse as { name: string; response?: unknown } | undefined;
      if (result)
        messages.push({ role: "tool", content: JSON.stringify(result.response), tool_call_id: result.name });
    }
    if (text.length > 0 || calls.length > 0) {
      messages.push({
        role: content.role === "model" ? "assistant" : "user",
        content: text.join("\n"),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    }
  }
  const declarations = geminiDeclarations(body);
  return { model, messages, ...(declarations.length > 0 ? { tools: declarations.map(functionTool) } : {}) };
}

/** `tools` is one `{functionDeclarations}` object (what the AI SDK sends) or a list of them (the REST docs). */
export function geminiDeclarations(body: Json): Json[] {
  const tools = (body.tools ?? []) as
    | { functionDeclarations?: Json[] }
    | Array<{ functionDeclarations?: Json[] }>;
  return [tools].flat().flatMap((tool) => tool.functionDeclarations ?? []);
}

function anthropicAsChat(body: Json): ChatCompletionBody {
  const messages: ChatCompletionMessage[] = [];
  const system = body.system as string | Array<{ text?: string }> | undefined;
  if (system !== undefined) {
    messages.push({
      role: "system",
      content: typeof system === "string" ? system : system.map((part) => part.text ?? "").join("\n"),
    });
  }
  for (const message of (body.messages ?? []) as Array<{ role: string; content: string | Json[] }>) {
    const blocks =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const text = blocks.flatMap((block) => (block.type === "text" ? [String(block.text)] : []));
    const calls = blocks.flatMap((block) =>
      block.type === "tool_use" ? [toolCall(String(block.id), String(block.name), block.input)] : [],
    );
    for (const block of blocks) {
      if (block.type !== "tool_result") continue;
      const content = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
      messages.push({ role: "tool", content, tool_call_id: String(block.tool_use_id) });
    }
    if (text.length > 0 || calls.length > 0) {
      messages.push({
        role: message.role === "assistant" ? "assistant" : "user",
        content: text.join("\n"),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    }
  }
  const tools = ((body.tools ?? []) as Json[]).map((tool) =>
    functionTool({ name: tool.name, description: tool.description, parameters: tool.input_schema }),
  );
  return { model: String(body.model ?? ""), messages, ...(tools.length > 0 ? { tools } : {}) };
}

function toolCall(id: string, name: string, args: unknown): ChatCompletionToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args ?? {}) } };
}

function functionTool(declaration: Json): ChatCompletionTool {
  return {
    type: "function",
    function: {
      name: String(declaration.name),
      ...(typeof declaration.description === "string" ? { description: declaration.description } : {}),
      ...(declaration.parameters ? { parameters: declaration.parameters as Json } : {}),
    },
  };
}

function geminiAnswer(reply: ScriptedReply): Json {
  const parts: Json[] = [];
  if (reply.text) parts.push({ text: reply.text });
  for (const call of reply.toolCalls) {
    parts.push({ functionCall: { name: call.function.name, args: JSON.parse(call.function.arguments) } });
  }
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: {
      promptTokenCount: reply.usage.promptTokens,
      candidatesTokenCount: reply.usage.completionTokens,
      totalTokenCount: reply.usage.promptTokens + reply.usage.completionTokens,
    },
  };
}

function anthropicAnswer(model: string, reply: ScriptedReply, index: number): Json {
  const content: Json[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls) {
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: JSON.parse(call.function.arguments),
    });
  }
  return {
    id: `msg_scripted_${index}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: reply.toolCalls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: reply.usage.promptTokens, output_tokens: reply.usage.completionTokens },
  };
}
