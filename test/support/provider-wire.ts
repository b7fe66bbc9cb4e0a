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

/**
 * The API a POST path belongs to, and the model it names (Gemini puts it in the path, and
 * asks for a stream by the path too: `streamGenerateContent`).
 */
export function apiOfPath(
  path: string,
): { api: ProviderApi; model?: string; streamed?: boolean } | undefined {
  if (path === "/v1/chat/completions") return { api: "chat-completions" };
  if (path === "/v1/messages") return { api: "anthropic" };
  const gemini = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (!gemini) return undefined;
  return {
    api: "gemini",
    model: decodeURIComponent(gemini[1]!),
    streamed: gemini[2] === "streamGenerateContent",
  };
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

/** A streamed answer as server-sent events: `head`, one event per piece of the text, `tail`. */
export interface AnswerEvents {
  head: string[];
  text(piece: string): string;
  tail: string[];
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

export function answerEvents(
  api: ProviderApi,
  model: string,
  reply: ScriptedReply,
  index: number,
): AnswerEvents {
  if (api === "gemini") return geminiEvents(reply);
  if (api === "anthropic") return anthropicEvents(model, reply, index);
  return chatCompletionEvents(model, reply, index);
}

function chatCompletionEvents(model: string, reply: ScriptedReply, index: number): AnswerEvents {
  const chunk = (fields: Json) =>
    sse({
      id: `chatcmpl-scripted-${index}`,
      object: "chat.completion.chunk",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [],
      ...fields,
    });
  const choice = (delta: Json, finishReason: string | null = null) =>
    chunk({ choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const { promptTokens, completionTokens } = reply.usage;
  return {
    head: [choice({ role: "assistant", content: "" })],
    text: (piece) => choice({ content: piece }),
    tail: [
      ...reply.toolCalls.map((call, position) => choice({ tool_calls: [{ index: position, ...call }] })),
      choice({}, reply.finishReason ?? (reply.toolCalls.length > 0 ? "tool_calls" : "stop")),
      chunk({
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      }),
      sse("[DONE]"),
    ],
  };
}

function geminiEvents(reply: ScriptedReply): AnswerEvents {
  return {
    head: [],
    text: (piece) =>
      sse({ candidates: [{ content: { role: "model", parts: [{ text: piece }] }, index: 0 }] }),
    tail: [sse(geminiAnswer({ ...reply, text: null }))],
  };
}

function anthropicEvents(model: string, reply: ScriptedReply, index: number): AnswerEvents {
  const event = (type: string, fields: Json) => sse({ type, ...fields }, type);
  const whole = anthropicAnswer(model, reply, index);
  const texts = reply.text ? 1 : 0;
  return {
    head: [
      event("message_start", {
        message: {
          ...whole,
          content: [],
          stop_reason: null,
          usage: { ...(whole.usage as Json), output_tokens: 0 },
        },
      }),
      ...(texts
        ? [event("content_block_start", { index: 0, content_block: { type: "text", text: "" } })]
        : []),
    ],
    text: (piece) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }),
    tail: [
      ...(texts ? [event("content_block_stop", { index: 0 })] : []),
      ...reply.toolCalls.flatMap((call, position) => [
        event("content_block_start", {
          index: texts + position,
          content_block: { type: "tool_use", id: call.id, name: call.function.name, input: {} },
        }),
        event("content_block_delta", {
          index: texts + position,
          delta: { type: "input_json_delta", partial_json: call.function.arguments },
        }),
        event("content_block_stop", { index: texts + position }),
      ]),
      event("message_delta", {
        delta: { stop_reason: whole.stop_reason, stop_sequence: null },
        usage: { output_tokens: reply.usage.completionTokens },
      }),
      event("message_stop", {}),
    ],
  };
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
