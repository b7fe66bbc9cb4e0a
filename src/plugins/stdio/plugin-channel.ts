import type { Built } from "../../components/builders.ts";
import type { SystemPartsRegistry } from "../../components/system-parts.ts";
import type { Component, Disposer } from "../../components/types.ts";
import { renderSegments } from "../../message/render.ts";
import type { Segment } from "../../message/segment.ts";
import type { RuntimeLoadRequest } from "../runtime.ts";
import type { RuntimeDetails } from "../status-types.ts";
import type { CallsInFlight } from "./calls-in-flight.ts";
import type { StdioChannels } from "./channel-adapter.ts";
import { channelSessionPrefix } from "./channel-session.ts";
import type { PluginCall } from "./component-factory.ts";
import type { Declarations } from "./declarations.ts";
import {
  type ActivateAnswer,
  type ChannelInbound,
  type ChannelPromptPush,
  type ChannelToolsPush,
  type FetchPicturePush,
  isMemoryPush,
  isPushMethod,
  type JsonObject,
  type MemoryPush,
  type ProtocolValidators,
  problemsOf,
  requestIdOf,
  type SendMessagePush,
  type ToolsPush,
  type WebUiPush,
} from "./protocol.ts";

export interface PluginChannelDeps {
  request: RuntimeLoadRequest;
  channels: StdioChannels;
  systemParts: SystemPartsRegistry;
  protocol: ProtocolValidators;
  declarations: Declarations;
  call: PluginCall;
  /** The components the process declared at activation; their names are taken for channel tools. */
  declared: () => Built<Component>[];
  /** The tool and command calls in flight, which `send_message` pushes reach. */
  inFlight: CallsInFlight;
  /** A `tools` push: the activation's tools are replaced. */
  replaceTools(tools: unknown[]): void;
  /** Writes a line to the current process that answers one of its pushes (`picture`). */
  notify(method: string, params: JsonObject): void;
}

/**
 * What a stdio plugin adds through its pushes and its channel: the channel provider it
 * declared, the channel tools and channel prompt it pushed, its web UI widgets, and the
 * channel's `channel_send` into the process. Its messages into a call's chat
 * (`send_message`) and its new tools (`tools`) are handed on.
 */
export class PluginChannel {
  private provider: { name: string; configSchema?: unknown } | undefined;
  private channelTools: Built<Component>[] = [];
  private widgets: unknown[] | undefined;
  private removePrompt: Disposer = () => {};
  private detachChannel: Disposer = () => {};
  private attached = false;

  constructor(private readonly deps: PluginChannelDeps) {}

  get tools(): Built<Component>[] {
    return this.channelTools;
  }

  private get id(): string {
    return this.deps.request.manifest.id;
  }

  private get logger() {
    return this.deps.request.logger;
  }

  private get name(): string {
    return this.provider?.name ?? this.id;
  }

  details(): Pick<RuntimeDetails, "widgets" | "channel"> {
    return {
      ...(this.widgets ? { widgets: this.widgets } : {}),
      ...(this.provider ? { channel: this.provider } : {}),
    };
  }

  declareProvider(provider: ActivateAnswer["channel_provider"]): void {
    this.provider = provider
      ? {
          name: provider.name || this.id,
          ...(provider.config_schema === undefined ? {} : { configSchema: provider.config_schema }),
        }
      : undefined;
  }

  /** The first activated version (or retry) takes over the plugin's channel, once. */
  attach(): void {
    if (this.attached) return;
    this.attached = true;
    const channel = this;
    this.detachChannel = this.deps.channels.attach(this.id, {
      get name() {
        return channel.name;
      },
      send: (chatId, segments) => this.send(chatId, segments),
    });
  }

  detach(): void {
    this.detachChannel();
  }

  /** Takes the pushed channel prompt out of the system parts. */
  withdrawPrompt(): void {
    this.removePrompt();
  }

  /** The process is gone: what it pushed goes with it. */
  forget(): void {
    this.channelTools = [];
    this.widgets = undefined;
    this.removePrompt();
    this.removePrompt = () => {};
  }

  /** A push from the current process; an unknown or invalid one is skipped with a log line. */
  receive(method: string, params: JsonObject): void {
    if (!isPushMethod(method)) {
      this.logger.warn({ method }, `plugin pushed the unknown method "${method}"; skipped`);
      return;
    }
    const validate = this.deps.protocol.push[method];
    if (!validate(params)) {
      const problems = problemsOf(validate);
      this.logger.warn({ method }, `plugin pushed an invalid ${method}; skipped: ${problems}`);
      // The plugin waits for a memory answer: it gets the reason instead of waiting out its call.
      if (isMemoryPush(method))
        this.deps.notify("memory", {
          requestId: requestIdOf(params),
          error: `invalid ${method}: ${problems}`,
        });
      return;
    }
    switch (method) {
      case "channel_inbound":
        this.deps.channels.receive(this.id, params as unknown as ChannelInbound);
        return;
      case "channel_tools":
        this.declareTools((params as unknown as ChannelToolsPush).tools);
        return;
      case "channel_prompt":
        this.removePrompt();
        this.removePrompt = this.deps.systemParts.add(
          channelSessionPrefix(this.id),
          (params as unknown as ChannelPromptPush).system_parts,
        );
        return;
      case "web_ui":
        this.widgets = (params as unknown as WebUiPush).widgets;
        this.deps.request.statusChanged();
        return;
      case "send_message":
        this.deps.inFlight.send(params as unknown as SendMessagePush);
        return;
      case "tools":
        this.deps.replaceTools((params as unknown as ToolsPush).tools);
        return;
      case "fetch_picture":
        void this.deps.inFlight
          .fetchPicture(params as unknown as FetchPicturePush)
          .then((answer) => this.deps.notify("picture", answer));
        return;
      case "memory_recall":
      case "memory_remember":
      case "memory_forget":
        void this.deps.inFlight
          .memory({ method, ...params } as MemoryPush)
          .then((answer) => this.deps.notify("memory", answer));
        return;
    }
  }

  /** A new `channel_tools` declaration replaces the previous one; a bad tool in it is left out alone. */
  private declareTools(tools: unknown[]): void {
    this.channelTools = this.deps.declarations.ofTools(
      tools,
      this.deps.declared(),
      channelSessionPrefix(this.id),
    );
    this.deps.request.componentsChanged();
  }

  private async send(chatId: string, segments: Segment[]): Promise<string | undefined> {
    const answer = await this.deps.call("channel_send", {
      chatId,
      text: renderSegments(segments),
      segments: segments.map(({ type, data }) => ({ type, data })),
    });
    const messageId = answer.message_id ?? answer.messageId;
    return typeof messageId === "string" || typeof messageId === "number" ? String(messageId) : undefined;
  }
}
