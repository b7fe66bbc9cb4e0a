/**
 * A real HTTP server on 127.0.0.1 speaking the part of the OpenAI Chat Completions API that
 * the AI SDK's `openai-compatible` and `openai` providers use, answering from a script.
 *
 * ```ts
 * const llm = await ScriptedLlmServer.start();
 * llm.enqueue(
 *   { toolCalls: [{ name: "reply", arguments: { set_quote: true } }] }, // planner round
 *   { text: "早上好" },                                                 // replyer
 * );
 * // provider config: { id: "main", type: "openai-compatible", baseUrl: llm.baseUrl, apiKey: "test-key", … }
 * … run the bot …
 * expect(llm.lastRequestWithTool("reply")?.promptText).toContain("早上好呀");
 * expect(llm.unscriptedRequests).toEqual([]);
 * await llm.close();
 * ```
 *
 * Each `POST /v1/chat/completions` takes the next step of the queue: an answer (text and/or
 * tool calls), an HTTP failure, optionally after a delay, or a function that looks at the
 * request and returns one of those. When the queue is empty the server answers 500 with a
 * message saying so and records the request in `unscriptedRequests`, so a test fails with a
 * readable reason instead of hanging. `GET /v1/models` lists `options.models`.
 * A streamed request (`stream: true`, Gemini's `streamGenerateContent`) is answered as the
 * API's server-sent events (for Chat Completions `chat.completion.chunk`s, usage in the last
 * one, then `[DONE]`): the text all at once, or one token (a character) at a time at
 * `stream.tokensPerSecond`, optionally stalling for good after `stream.stallAfterTokens`
 * tokens (the connection stays open, nothing more comes).
 *
 * The same script also answers Gemini (`POST /v1/models/<model>:generateContent`) and
 * Anthropic (`POST /v1/messages`) requests, so providers of type `gemini` and `anthropic`
 * can point their baseUrl at `llm.baseUrl` too. Their requests are recorded in the Chat
 * Completions shape (`body`) with the original in `wire` and the API in `api`.
 * Pictures a Chat Completions request carries (vision calls) are in `images` as data URLs.
 * `POST /v1/audio/transcriptions` (speech to text, multipart `file` + `model`) answers
 * `{ text }` from `options.transcribe`, recording each upload in `transcriptions`.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AnswerEvents,
  answerEvents,
  apiOfPath,
  type ProviderApi,
  readAsChat,
  type ScriptedReply,
  writeAnswer,
} from "./provider-wire.ts";

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (use it for malformed arguments). */
  arguments: Record<string, unknown> | string;
  /** Defaults to `call_<request index>_<position>`. */
  id?: string;
}

/** A successful completion. `{ delayMs }` alone answers an empty text after the delay. */
export interface ScriptedAnswer {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Waits this long before answering (the client may time out meanwhile). */
  delayMs?: number;
  /** Overrides the estimate (about four characters per token). */
  usage?: { promptTokens: number; completionTokens: number };
  /** Defaults to "tool_calls" when there are tool calls, else "stop". */
  finishReason?: string;
  /** How a streamed request gets the text; absent, a streamed answer comes at once. */
  stream?: ScriptedStream;
}

/** The pace of a streamed answer's text: one token is one character. */
export interface ScriptedStream {
  tokensPerSecond: number;
  /** Sends this many tokens, then nothing more (the connection stays open): a stalled model. */
  stallAfterTokens?: number;
}

/** An HTTP error answer. */
export interface ScriptedFailure {
  status: number;
  /** JSON body, or a string sent as text. Defaults to an OpenAI-style `{ error: { message } }`. */
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type ScriptedResponse = ScriptedAnswer | ScriptedFailure;

/** A fixed response, or a function deciding from the request (e.g. echoing what it saw). */
export type ScriptedStep =
  | ScriptedResponse
  | ((request: RecordedLlmRequest) => ScriptedResponse | Promise<ScriptedResponse>);

export interface ChatCompletionToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatCompletionMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | null | Array<{ type: string; text?: string; image_url?: { url: string } }>;
  tool_calls?: ChatCompletionToolCall[];
  tool_call_id?: string;
}

export interface ChatCompletionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** The request body as the provider sent it (unknown fields kept). */
export interface ChatCompletionBody {
  model: string;
  messages: ChatCompletionMessage[];
  tools?: ChatCompletionTool[];
  tool_choice?: unknown;
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  [field: string]: unknown;
}

export interface RecordedLlmRequest {
  /** Arrival order, from 0, over all chat completion requests. */
  index: number;
  headers: IncomingHttpHeaders;
  body: ChatCompletionBody;
  /** Names of the tools the request declared, in order. */
  toolNames: string[];
  /** Every message's text joined by newlines: handy for `toContain` checks on prompts. */
  promptText: string;
  /** The images the request carried (Chat Completions `image_url` parts), as their urls (`data:image/png;base64,…`). */
  images: string[];
  /** The API the request used. */
  api: ProviderApi;
  /** The request body exactly as sent (for chat-completions, the same as `body`). */
  wire: Record<string, unknown>;
}

/** One `POST /v1/audio/transcriptions` upload. */
export interface RecordedTranscription {
  model: string;
  fileName: string;
  /** The file part's content type. */
  mime: string;
  bytes: Buffer;
}

export interface ScriptedLlmServerOptions {
  /** What `POST /v1/audio/transcriptions` hears in an upload; without it the endpoint answers 500. */
  transcribe?: (upload: RecordedTranscription) => string;
  /**
   * How `POST /v1/embeddings` embeds one text (OpenAI's embeddings API); by default a
   * 32-dimension bag of the text's characters, so texts sharing characters are similar.
   */
  embed?: (text: string) => number[];
  /** Steps queued before the first request. */
  steps?: ScriptedStep[];
  /** Ids listed by `GET /v1/models`. */
  models?: string[];
  /**
   * Answers every request the queue has no step for, instead of the 500 an exhausted script
   * gets: an endless model for a load peer (bench/). Tests script their steps.
   */
  whenEmpty?: ScriptedStep;
}

export class ScriptedLlmServer {
  /** Every chat completion request, in arrival order. */
  readonly requests: RecordedLlmRequest[] = [];
  /** Requests that found the script empty (answered 500). A finished test expects none. */
  readonly unscriptedRequests: RecordedLlmRequest[] = [];
  private readonly steps: ScriptedStep[];
  private readonly whenEmpty: ScriptedStep | undefined;
  private readonly embed: (text: string) => number[];
  /** The texts of every `POST /v1/embeddings`, in arrival order (not in `requests`). */
  readonly embeddedTexts: string[] = [];
  /** Every `POST /v1/audio/transcriptions` upload, in arrival order (not in `requests`). */
  readonly transcriptions: RecordedTranscription[] = [];
  private readonly transcribe: ScriptedLlmServerOptions["transcribe"];
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    options: ScriptedLlmServerOptions,
  ) {
    this.steps = [...(options.steps ?? [])];
    this.whenEmpty = options.whenEmpty;
    this.embed = options.embed ?? characterBag;
    this.transcribe = options.transcribe;
  }

  static async start(options: ScriptedLlmServerOptions = {}): Promise<ScriptedLlmServer> {
    const models = options.models ?? ["scripted-model"];
    let instance: ScriptedLlmServer | undefined;
    const server = createServer((request, response) => {
      instance?.handle(request, response, models).catch((error: unknown) => {
        if (!response.headersSent)
          sendJson(response, 500, errorBody(`scripted LLM server crashed: ${error}`));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    instance = new ScriptedLlmServer(server, `http://127.0.0.1:${port}/v1`, options);
    return instance;
  }

  /** Appends steps to the script. */
  enqueue(...steps: ScriptedStep[]): void {
    this.steps.push(...steps);
  }

  /** Steps not yet consumed. */
  get remainingSteps(): number {
    return this.steps.length;
  }

  /** Requests that declared a tool named `name` (e.g. planner requests carry `reply`). */
  requestsWithTool(name: string): RecordedLlmRequest[] {
    return this.requests.filter((request) => request.toolNames.includes(name));
  }

  /** Requests that did not declare `name` (e.g. replyer requests lack `reply`). */
  requestsWithoutTool(name: string): RecordedLlmRequest[] {
    return this.requests.filter((request) => !request.toolNames.includes(name));
  }

  lastRequestWithTool(name: string): RecordedLlmRequest | undefined {
    return this.requestsWithTool(name).at(-1);
  }

  lastRequestWithoutTool(name: string): RecordedLlmRequest | undefined {
    return this.requestsWithoutTool(name).at(-1);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse, models: string[]): Promise<void> {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (request.method === "GET" && path === "/v1/models") {
      const data = models.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted" }));
      sendJson(response, 200, { object: "list", data });
      return;
    }
    if (request.method === "POST" && path === "/v1/embeddings") {
      const { input } = JSON.parse(await readBody(request)) as { input: string | string[] };
      const texts = Array.isArray(input) ? input : [input];
      this.embeddedTexts.push(...texts);
      sendJson(response, 200, {
        object: "list",
        data: texts.map((text, index) => ({ object: "embedding", index, embedding: this.embed(text) })),
        model: "scripted-embedding",
        usage: { prompt_tokens: texts.join("").length, total_tokens: texts.join("").length },
      });
      return;
    }
    if (request.method === "POST" && path === "/v1/audio/transcriptions") {
      await this.answerTranscription(request, response);
      return;
    }
    const route = request.method === "POST" ? apiOfPath(path) : undefined;
    if (!route) {
      sendJson(response, 404, errorBody(`scripted LLM server: no route for ${request.method} ${path}`));
      return;
    }
    let wire: Record<string, unknown>;
    try {
      wire = JSON.parse(await readBody(request)) as Record<string, unknown>;
    } catch {
      sendJson(response, 400, errorBody("scripted LLM server: the request body is not JSON"));
      return;
    }
    const body = readAsChat(route.api, wire, route.model);
    const recorded = recordOf(this.requests.length, request.headers, body, route.api, wire);
    this.requests.push(recorded);
    const step = this.steps.shift() ?? this.whenEmpty;
    if (step === undefined) {
      this.unscriptedRequests.push(recorded);
      const tools = recorded.toolNames.join(", ") || "none";
      const message = `scripted LLM server: script exhausted, no step left for request #${recorded.index} (tools: ${tools})`;
      sendJson(response, 500, errorBody(message));
      return;
    }
    const scripted = typeof step === "function" ? await step(recorded) : step;
    if (scripted.delayMs) await this.wait(scripted.delayMs);
    // The client may have given up (timeout, abort) while we waited.
    if (response.destroyed) return;
    if ("status" in scripted) {
      const failureBody = scripted.body ?? errorBody(`scripted failure ${scripted.status}`);
      send(response, scripted.status, failureBody, scripted.headers);
      return;
    }
    const reply = replyOf(recorded, scripted);
    if (wire.stream === true || route.streamed) {
      await this.stream(
        response,
        answerEvents(route.api, body.model, reply, recorded.index),
        reply,
        scripted.stream,
      );
      return;
    }
    sendJson(
      response,
      200,
      route.api === "chat-completions"
        ? completionOf(recorded, reply)
        : writeAnswer(route.api, recorded.body.model, reply, recorded.index),
    );
  }

  /** Reads the multipart upload as the platform's FormData does, and answers what `transcribe` hears. */
  private async answerTranscription(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBytes(request);
    const form = await new Response(body, {
      headers: { "content-type": request.headers["content-type"] ?? "" },
    }).formData();
    const file = form.get("file");
    if (!(file instanceof Blob)) {
      sendJson(response, 400, errorBody("scripted LLM server: no file part"));
      return;
    }
    const upload: RecordedTranscription = {
      model: String(form.get("model")),
      fileName: file instanceof File ? file.name : "",
      mime: file.type,
      bytes: Buffer.from(await file.arrayBuffer()),
    };
    this.transcriptions.push(upload);
    if (!this.transcribe) {
      sendJson(response, 500, errorBody("scripted LLM server: no transcribe option"));
      return;
    }
    sendJson(response, 200, { text: this.transcribe(upload) });
  }

  /** Writes the answer's events, its text at the scripted pace. */
  private async stream(
    response: ServerResponse,
    events: AnswerEvents,
    reply: ScriptedReply,
    pace: ScriptedStream | undefined,
  ): Promise<void> {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const event of events.head) response.write(event);
    const tokens = pace ? [...(reply.text ?? "")] : reply.text ? [reply.text] : [];
    for (const [position, token] of tokens.entries()) {
      if (position === pace?.stallAfterTokens) return;
      if (pace) await this.wait(1000 / pace.tokensPerSecond);
      if (response.destroyed) return;
      response.write(events.text(token));
    }
    response.end(events.tail.join(""));
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function recordOf(
  index: number,
  headers: IncomingHttpHeaders,
  body: ChatCompletionBody,
  api: ProviderApi,
  wire: Record<string, unknown>,
): RecordedLlmRequest {
  const toolNames = (body.tools ?? []).map((tool) => tool.function.name);
  const promptText = (body.messages ?? []).map(messageText).join("\n");
  const images = (body.messages ?? []).flatMap((message) =>
    Array.isArray(message.content)
      ? message.content.flatMap((part) => (part.image_url ? [part.image_url.url] : []))
      : [],
  );
  return { index, headers, body, toolNames, promptText, images, api, wire };
}

function messageText(message: ChatCompletionMessage): string {
  const parts: string[] = [];
  if (typeof message.content === "string") parts.push(message.content);
  if (Array.isArray(message.content)) {
    for (const part of message.content) if (part.text) parts.push(part.text);
  }
  for (const call of message.tool_calls ?? [])
    parts.push(`${call.function.name}(${call.function.arguments})`);
  return parts.join("\n");
}

function replyOf(request: RecordedLlmRequest, answer: ScriptedAnswer): ScriptedReply {
  const toolCalls = (answer.toolCalls ?? []).map(
    (call, position): ChatCompletionToolCall => ({
      id: call.id ?? `call_${request.index}_${position}`,
      type: "function",
      function: {
        name: call.name,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
      },
    }),
  );
  const text = answer.text ?? (toolCalls.length > 0 ? null : "");
  const usage = answer.usage ?? {
    promptTokens: estimateTokens(
      JSON.stringify(request.body.messages) + JSON.stringify(request.body.tools ?? []),
    ),
    completionTokens: estimateTokens((text ?? "") + JSON.stringify(toolCalls.map((call) => call.function))),
  };
  return { text, toolCalls, usage, ...(answer.finishReason ? { finishReason: answer.finishReason } : {}) };
}

function completionOf(request: RecordedLlmRequest, reply: ScriptedReply): Record<string, unknown> {
  const { text, toolCalls, usage } = reply;
  return {
    id: `chatcmpl-scripted-${request.index}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    },
  };
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function errorBody(message: string): Record<string, unknown> {
  return { error: { message, type: "scripted_error", code: null } };
}

async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBytes(request)).toString("utf8");
}

function readBytes(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, body, {});
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const isText = typeof body === "string";
  const payload = isText ? body : JSON.stringify(body);
  response.writeHead(status, {
    "content-type": isText ? "text/plain; charset=utf-8" : "application/json",
    ...headers,
  });
  response.end(payload);
}

/** A 32-dimension bag of a text's characters: the scripted default embedding. */
function characterBag(text: string): number[] {
  const vector = new Array<number>(32).fill(0);
  for (const character of text) vector[(character.codePointAt(0) ?? 0) % 32]! += 1;
  return vector;
}
