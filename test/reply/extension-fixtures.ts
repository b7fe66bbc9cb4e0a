/**
 * Reply extension plugins written on the fly, and what the tests read back: the calls the
 * extensions saw, the reply tool's declaration, the monitor timeline and the send actions.
 */
import { afterEach } from "vitest";
import { PluginSandbox } from "../plugins/plugin-fixtures.ts";
import type { StartBotOptions } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, type SceneOptions, startScene } from "../support/scene.ts";
import type { RecordedLlmRequest } from "../support/scripted-llm-server.ts";

/** One call an extension saw: the payload as the host gave it, and which extension it was. */
export interface SeenCall {
  extension: string;
  phase: "prepare" | "before_send";
  reply_id: string;
  call_id: string;
  session_id: string;
  reply_message_id: string;
  chat: Record<string, unknown>;
  parameters: Record<string, unknown>;
  text: string;
  messages: Array<{ segments: Array<Record<string, unknown>>; quote_previous: boolean }>;
}

const probe = globalThis as { replyProbe?: SeenCall[] };

/** Every call the test extensions saw so far, in call order. */
export function seenCalls(): SeenCall[] {
  return probe.replyProbe ?? [];
}

export function clearSeenCalls(): void {
  delete probe.replyProbe;
}

/** Between the tests sharing one scene: forgets the extension calls seen and the actions the stand-in got. */
export function forgetSeen(qq: OneBotStandIn): void {
  clearSeenCalls();
  qq.actions.length = 0;
}

/**
 * A class-style plugin whose methods are `@ReplyExtension`s. Each method records its payload
 * (see `seenCalls`) and then runs `body`, which sees `payload` and `context`.
 */
export function extensionPlugin(...methods: Array<{ name: string; options: string; body?: string }>): string {
  const members = methods.map(
    ({ name, options, body = "return {};" }) => `
  @ReplyExtension(${JSON.stringify(name)}, ${options})
  async ${name}(payload: any, context: any) {
    ((globalThis as any).replyProbe ??= []).push({ extension: \`\${this.id}.${name}\`, ...structuredClone(payload) });
    ${body}
  }`,
  );
  return `import { Plugin, ReplyExtension } from "tsumugi/sdk";\n\nexport default class TestPlugin extends Plugin {\n${members.join("\n")}\n}\n`;
}

export interface PluginOptionsSchema {
  type: string;
  description: string;
  properties: Record<string, Record<string, unknown>>;
  additionalProperties: boolean;
}

/** The `plugin_options` schema of a planner request's reply tool (undefined when absent). */
export function pluginOptionsOf(request: RecordedLlmRequest): PluginOptionsSchema | undefined {
  const reply = request.body.tools?.find((tool) => tool.function.name === "reply");
  if (!reply) throw new Error("the request has no reply tool");
  const { properties } = reply.function.parameters as { properties: Record<string, unknown> };
  return properties.plugin_options as PluginOptionsSchema | undefined;
}

/** Send actions the bot made (messages it sent). */
export function sendActions(qq: OneBotStandIn) {
  return qq.actions.filter((action) => action.action.startsWith("send_"));
}

/**
 * For tests that each start their own scene, some with a plugin folder: what a test started is
 * closed, removed and forgotten after it (call once per describe block).
 */
export function scenePerTest() {
  let scene: Scene | undefined;
  let sandbox: PluginSandbox | undefined;
  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox?.remove();
    sandbox = undefined;
    clearSeenCalls();
  });
  return {
    /** A plugin folder for this test; list `root` in `plugins.dirs`. */
    sandbox: () => {
      sandbox = new PluginSandbox();
      return sandbox;
    },
    start: async (options: StartBotOptions & SceneOptions) => {
      scene = await startScene(options);
      return scene;
    },
  };
}

/** Alice @-mentions the bot in GROUP with `text`; returns the message id. */
export function askInGroup(qq: OneBotStandIn, text: string): string {
  return qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });
}
