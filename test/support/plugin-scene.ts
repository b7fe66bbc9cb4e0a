/**
 * `tsumugi/testing`: what the project's own tests run on, for plugin authors. A real bot with
 * the plugins under test, the scripted model and the OneBot stand-in (scene.ts), asked as a
 * group member would ask it:
 *
 *   const scene = await startScene({ plugins: ["."] });
 *   assert.equal(await scene.ask("/hello 世界"), "你好，世界");   // a command: no model needed
 *   scene.willCall("weather", { city: "上海" });                  // the model calls a tool…
 *   scene.willReply("上海晴");                                    // …then replies
 *   assert.equal(await scene.ask("上海天气？"), "上海晴");
 *   assert.deepEqual(scene.toolResults("weather"), [{ sky: "晴" }]);
 *   await scene.close();
 *
 * Runs under any test runner (node --test, vitest); nothing here depends on one.
 */
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { StartBotOptions } from "./bot-harness.ts";
import { ALICE, GROUP, mention, plain } from "./messages.ts";
import type { SentMessage } from "./onebot-standin.ts";
import { type Scene, startScene as startBotScene } from "./scene.ts";

export { OneBotStandIn, type SentMessage } from "./onebot-standin.ts";
export { ScriptedLlmServer } from "./scripted-llm-server.ts";

export interface PluginSceneOptions {
  /** Plugin folders to load (each holds a plugin.json), relative to the working folder; default none. */
  plugins?: string[];
  /** Bot config merged over the test defaults, e.g. `{ plugins: { config: { myplugin: {…} } } }`. */
  config?: StartBotOptions["config"];
}

export interface AskOptions {
  /** The asker's user id (default "30001"). */
  from?: string;
  nickname?: string;
  /** In a private chat instead of the group. */
  privately?: boolean;
  /** Group messages @-mention the bot unless this is false. */
  mention?: boolean;
  /** How long to wait for the answer (default 10 s). */
  timeoutMs?: number;
}

export interface PluginScene extends Scene {
  /** Sends `text` to the bot and resolves with the text of the next message it sends. */
  ask(text: string, options?: AskOptions): Promise<string>;
  /** The model's next planner round calls `tool` with `args` (the full name, or the plugin's own name). */
  willCall(tool: string, args?: Record<string, unknown>): void;
  /** The model's next turn replies with `text`: the planner calls `reply`, the replyer says `text`. */
  willReply(text: string): void;
  /** What the tool calls named `tool` returned to the model so far, parsed from JSON where they are JSON. */
  toolResults(tool: string): unknown[];
}

/** Starts a bot with the plugins of `options.plugins` loaded; close it with `scene.close()`. */
export async function startScene(options: PluginSceneOptions = {}): Promise<PluginScene> {
  // The bot loads the sub-folders of its plugin folders: each plugin under test is linked into one.
  const pluginsDir = mkdtempSync(join(tmpdir(), "tsumugi-scene-plugins-"));
  for (const folder of options.plugins ?? []) {
    const real = realpathSync(resolve(folder));
    symlinkSync(real, join(pluginsDir, basename(real)), "dir");
  }
  const config = { ...options.config, plugins: { ...pluginsOf(options.config), dirs: [pluginsDir] } };
  const scene = await startBotScene({ config });
  return pluginScene(scene, pluginsDir);
}

function pluginsOf(config: StartBotOptions["config"]): Record<string, unknown> {
  const plugins = config?.plugins;
  return typeof plugins === "object" && plugins !== null ? (plugins as Record<string, unknown>) : {};
}

function pluginScene(scene: Scene, pluginsDir: string): PluginScene {
  const { llm, qq } = scene;
  return {
    ...scene,
    async ask(text, options = {}) {
      const answered = qq.sent.length;
      const sender = { userId: options.from ?? ALICE, nickname: options.nickname ?? "Alice" };
      if (options.privately) qq.pushPrivateMessage({ ...sender, message: plain(text) });
      else
        qq.pushGroupMessage({
          ...sender,
          groupId: GROUP,
          message: options.mention === false ? plain(text) : mention(text),
        });
      const next = (sent: SentMessage) => qq.sent.indexOf(sent) >= answered;
      return (await qq.waitForSent(next, options.timeoutMs ?? 10_000)).text;
    },
    willCall(tool, args = {}) {
      llm.enqueue({ toolCalls: [{ name: tool, arguments: args }] });
    },
    willReply(text) {
      llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text });
    },
    toolResults(tool) {
      // Every planner round carries the turn's calls and results so far: each call's result is kept once.
      const results = new Map<string, unknown>();
      for (const request of llm.requests) {
        const messages = request.body.messages;
        const calls = new Set(
          messages.flatMap((message) =>
            (message.tool_calls ?? []).filter((call) => call.function.name === tool).map((call) => call.id),
          ),
        );
        for (const message of messages) {
          const id = message.tool_call_id;
          if (message.role === "tool" && id && calls.has(id)) results.set(id, message.content);
        }
      }
      return [...results.values()].map((content) => parsedJson(String(content)));
    },
    async close() {
      await scene.close();
      rmSync(pluginsDir, { recursive: true, force: true });
    },
  };
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
