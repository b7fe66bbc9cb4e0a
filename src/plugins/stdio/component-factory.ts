import { type Built, buildCommand, buildEnricher, buildHook, buildTool } from "../../components/builders.ts";
import { buildReplyExtension } from "../../components/extension-builder.ts";
import type { CallContext, Component, ToolComponent } from "../../components/types.ts";
import type {
  ComponentOptions,
  HookEventName,
  HookInput,
  HookResult,
  OutgoingMessage,
  ParametersDeclaration,
  ReplyExtensionOptions,
} from "../../sdk/types.ts";
import type { RuntimeLoadRequest } from "../runtime.ts";
import type { CallsInFlight } from "./calls-in-flight.ts";
import type { StdioChannels } from "./channel-adapter.ts";
import { chatParams } from "./chat-params.ts";
import type { CallOptions } from "./plugin-process.ts";
import {
  type CommandDeclaration,
  type EnricherDeclaration,
  type HookDeclaration,
  isJsonObject,
  type JsonObject,
  type ReplyExtensionDeclaration,
  type ToolDeclaration,
} from "./protocol.ts";

/** How much longer than a plugin call's own limit the host's runner waits for it. */
const EXECUTOR_MARGIN_MS = 250;

/** A request to the plugin's current process; rejects when none is running. */
export type PluginCall = (method: string, params: JsonObject, options?: CallOptions) => Promise<JsonObject>;

/**
 * Turns a validated declaration into a component whose handler is a request to the plugin
 * process: `execute_tool`, `hook`, `enrich` or `reply_extension`.
 */
export class ComponentFactory {
  constructor(
    private readonly request: RuntimeLoadRequest,
    private readonly channels: StdioChannels,
    private readonly call: PluginCall,
    private readonly inFlight: CallsInFlight,
  ) {}

  private get pluginId(): string {
    return this.request.manifest.id;
  }

  tool(declaration: ToolDeclaration, sessionPrefix?: string): Built<ToolComponent> {
    const { name, description, parameters, ...options } = declaration;
    const built = buildTool(
      { pluginId: this.pluginId, name },
      {
        ...(options as ComponentOptions),
        description: description ?? "",
        parameters: (parameters ?? undefined) as ParametersDeclaration | undefined,
      },
      this.request.manifest.timeout,
      this.request.ajv,
      async (args, call) => {
        // xbot sends the arguments as one JSON string; a missing result is an empty one (Go's omitempty).
        const input = JSON.stringify(args);
        const answer = await this.callInFlight(call, "execute_tool", { toolName: name, input }, timeoutMs);
        // `acted`: the plugin did the job itself (its messages are out): no further model call.
        if (answer.acted === true) return undefined;
        return answer.result ?? "";
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    if (sessionPrefix !== undefined) built.component.scope = { ...built.component.scope, sessionPrefix };
    return built;
  }

  /** A chat command: `command` requests; the answer's `result` (text or segments) is sent back, none = nothing. */
  command(declaration: CommandDeclaration): Built<Component> {
    const { name, pattern, ...options } = declaration;
    return buildCommand(
      { pluginId: this.pluginId, name },
      {
        ...(options as ComponentOptions),
        ...(pattern === undefined ? {} : { pattern: new RegExp(pattern, "u") }),
      },
      async (match, call) => {
        const { command, args, rest } = match;
        const params = { commandName: name, command, args, rest, isAdmin: call.isAdmin };
        const answer = await this.callInFlight(call, "command", params, this.request.manifest.timeout);
        const result = answer.result;
        if (result === undefined || result === null || result === "") return undefined;
        return (isJsonObject(result) ? [result] : result) as OutgoingMessage;
      },
    );
  }

  /** A hook of an event this host never fires (xbot knows more) throws, so it is left out with a log line. */
  hook(declaration: HookDeclaration, index: number): Built<Component> {
    const { event, matcher, name, ...options } = declaration;
    const hookName = name ?? `${event}_${index + 1}`;
    const built = buildHook(
      { pluginId: this.pluginId, name: hookName },
      {
        ...(options as ComponentOptions),
        timeout_ms: this.callLimit(options),
        event: event as HookEventName,
        ...(matcher ? { matcher } : {}),
      },
      async (input, call) => {
        // Open so that `fetch_picture` reaches the message's pictures; a hook does not send.
        const open = this.inFlight.open(call, { maySend: false });
        try {
          const answer = await this.call(
            "hook",
            { hookName, ...this.hookParams(input, call), callId: open.id, pictures: wirePictures(call) },
            { timeoutMs, signal: call.signal },
          );
          // xbot's code reads hook_result, its docs write hookResult: both count; neither = allow.
          return (answer.hook_result ?? answer.hookResult ?? undefined) as HookResult | undefined;
        } finally {
          await open.close();
        }
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    return built;
  }

  /** A reply extension: `reply_extension` requests carry `extensionName` beside the payload's fields. */
  replyExtension(declaration: ReplyExtensionDeclaration): Built<Component> {
    const { name, ...options } = declaration;
    const built = buildReplyExtension(
      { pluginId: this.pluginId, name },
      { ...(options as unknown as ReplyExtensionOptions), timeout_ms: this.callLimit(options) },
      this.request.ajv,
      async (payload, call) => {
        const params = { extensionName: name, ...payload };
        const answer = await this.call("reply_extension", params, { timeoutMs, signal: call.signal });
        return replyExtensionResult(answer);
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    return built;
  }

  enricher(declaration: EnricherDeclaration): Built<Component> {
    const { name, description, ...options } = declaration;
    const built = buildEnricher(
      { pluginId: this.pluginId, name },
      {
        ...(options as ComponentOptions),
        timeout_ms: this.callLimit(options),
        ...(description === undefined ? {} : { description }),
      },
      async (call) => {
        const params = {
          enricherName: name,
          ...chatParams(call.event, this.channels),
          replyId: call.replyId ?? "",
        };
        const answer = await this.call("enrich", params, { timeoutMs, signal: call.signal });
        return answer.result as string | undefined;
      },
    );
    const timeoutMs = leaveTheLimitToTheCall(built.component);
    return built;
  }

  /**
   * A request made for a tool or command call: it carries the call's id (for `send_message`),
   * its turn, chat and event; the answer is taken once the messages it sent are out.
   */
  private async callInFlight(
    call: CallContext,
    method: string,
    params: JsonObject,
    timeoutMs: number,
  ): Promise<JsonObject> {
    const open = this.inFlight.open(call);
    try {
      const context = {
        callId: open.id,
        replyId: call.replyId ?? "",
        ...chatParams(call.event, this.channels),
        event: call.event,
        pictures: wirePictures(call),
      };
      return await this.call(method, { ...params, ...context }, { timeoutMs, signal: call.signal });
    } finally {
      await open.close();
    }
  }

  /** The stdio protocol's `hook` params: camelCase on the wire, the tool fields always present. */
  private hookParams(input: HookInput, call: CallContext): JsonObject {
    const tool = "tool_name" in input ? input : undefined;
    return {
      event: input.event,
      toolName: tool?.tool_name ?? "",
      toolInput: tool ? JSON.stringify(tool.tool_input) : "",
      ...chatParams(call.event, this.channels),
      replyId: input.reply_id,
      ...hookEventParams(input),
    };
  }

  /**
   * A component's call limit: its declared `timeout_ms`, else the manifest's `timeout`, the
   * limit of every call to the plugin (not an in-process hook's 5 s or enricher's 3 s).
   */
  private callLimit(options: JsonObject): number {
    return (options.timeout_ms as number | undefined) ?? this.request.manifest.timeout;
  }
}

/** The pictures of a call's message as the wire carries them; `fetch_picture` names one by its `index`. */
function wirePictures(call: CallContext): JsonObject[] {
  return call.pictures.map(({ kind, fileId, description }, index) => ({
    index,
    kind,
    ...(fileId === undefined ? {} : { fileId }),
    ...(description === undefined ? {} : { description }),
  }));
}

/** The fields of one hook event beyond the tool fields (PreReplyGenerate's stay in-process). */
function hookEventParams(input: HookInput): JsonObject {
  switch (input.event) {
    case "PostToolUse":
      return input.tool_output === undefined ? {} : { toolOutput: input.tool_output };
    case "PostToolUseFailure":
      return { error: input.error };
    case "UserPromptSubmit":
      return { prompt: input.prompt };
    case "AgentStop":
      return { status: input.status, reason: input.reason };
    default:
      return {};
  }
}

/**
 * The plugin call's own limit decides (the call fails and the process restarts); the host's
 * runner gets a little longer, only to guard against a call that never settles. Returns the
 * call's limit.
 */
function leaveTheLimitToTheCall(component: { timeoutMs: number }): number {
  const limit = component.timeoutMs;
  component.timeoutMs = limit + EXECUTOR_MARGIN_MS;
  return limit;
}

/**
 * What a reply extension's handler returned: the answer's `result` object or, leniently, the
 * answer's own `extra_prompt` / `messages`. The reply stage checks it like any handler's.
 */
function replyExtensionResult(answer: JsonObject): unknown {
  if (isJsonObject(answer.result)) return answer.result;
  const { extra_prompt, messages } = answer;
  return {
    ...(extra_prompt === undefined ? {} : { extra_prompt }),
    ...(messages === undefined ? {} : { messages }),
  };
}
