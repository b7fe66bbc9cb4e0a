/**
 * The function-declaration reference plugin as printed (the "gold vault" walkthrough),
 * in TypeScript: snake_case exports, a dotted `dynamic_imports` path, business arguments by
 * name after `(bot, event, config)`, and `bot.send(event, Image(…))` with one segment.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REFERENCE_PLUGINS } from "../python/python-fixtures.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { PluginSandbox } from "./plugin-fixtures.ts";

/**
 * The walkthrough's `run/gold_vault/__init__.py` byte for byte (kept for the Python SDK's tests) as
 * a TypeScript entry: its three assignments hold only JSON-like literals, so putting
 * `export const` before each is the whole translation.
 */
const GOLD_VAULT_INIT = readFileSync(join(REFERENCE_PLUGINS, "gold_vault", "__init__.py"), "utf8").replace(
  /^(\w+) = /gm,
  "export const $1 = ",
);

/**
 * The walkthrough's `service.py` in TypeScript (`get_user` is the author's own helper, filled in),
 * sending one `Image(…)` segment first as its `call_tarot` does.
 */
const GOLD_VAULT_SERVICE = `
import { Image } from "tsumugi/sdk";

async function get_user(user_id: string) {
  return { user_id, coin: 1250 };
}

export async function query_user_coins(bot: any, event: any, config: any, target_name: string) {
  // The first three are always bot, event, config; the fourth is parameters' target_name.
  const user = await get_user(event.user_id);
  const coin_count = user.coin;
  await bot.send(event, Image("https://example.com/vault.png"));
  return {
    user_id: event.user_id,
    target: target_name,
    coins: coin_count,
    wallet_status: coin_count > 1000 ? "富得流油" : "穷得叮当响",
  };
}`;

describe("the function-declaration reference plugin written as printed (TypeScript)", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;
  let llm: ScriptedLlmServer;
  let qq: OneBotStandIn;

  const start = async () => {
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    ({ llm, qq } = scene);
  };
  const ask = (text: string) =>
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });
  const toolResults = (request: number) =>
    llm.requests[request]!.body.messages.filter((message) => message.role === "tool").map((message) =>
      JSON.parse(String(message.content)),
    );

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  it("runs the gold vault: target_name arrives as the string, one Image segment is sent, the dict goes back", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("gold_vault", { "index.ts": GOLD_VAULT_INIT, "service.ts": GOLD_VAULT_SERVICE });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "query_user_coins", arguments: { target_name: "self" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "哇！你一共有 1250 枚金币呢，富得流油~" },
    );
    ask("我的小金库还有多少金币？");
    const image = await qq.waitForSent(undefined, 8_000);
    expect(image.message).toEqual([{ type: "image", data: { file: "https://example.com/vault.png" } }]);
    const reply = await qq.waitForSent((sent) => sent.messageId !== image.messageId, 8_000);
    expect(reply.text).toBe("哇！你一共有 1250 枚金币呢，富得流油~");
    expect(llm.requests[0]!.toolNames).toContain("query_user_coins");
    expect(toolResults(1)).toEqual([
      { user_id: ALICE, target: "self", coins: 1250, wallet_status: "富得流油" },
    ]);
  });

  it("passes arguments by name or as one object, as each function's parameter list asks", async () => {
    sandbox = new PluginSandbox();
    const declare = (name: string) => ({
      name,
      description: `参数传递方式：${name}`,
      parameters: {
        type: "object",
        properties: { target_name: { type: "string" }, count: { type: "integer" } },
        required: ["target_name"],
      },
    });
    const names = ["by_name", "typed_arrow", "one_name_sync", "destructured", "whole_object", "context_only"];
    sandbox.add("calling", {
      "index.ts": `
export const dynamicImports = { "./calls.ts": ${JSON.stringify(names)} };
export const functionDeclarations = ${JSON.stringify(names.map(declare))};`,
      "calls.ts": `
const pick = (text: string, fallback: number) => (text.includes(",") ? fallback : 0);
export async function by_name(bot: any, event: any, config: any, target_name: string, /* a ( comment, */ count = pick("a, (b", 2)) {
  return { target_name, count };
}
export const typed_arrow = async (bot: any, event: any, config: any, target_name: string): Promise<object> => ({ target_name });
export function one_name_sync(bot: any, event: any, config: any, target_name = "nobody") {
  return { target_name };
}
export async function destructured(bot: any, event: any, config: any, { target_name, count }: { target_name: string; count?: number }) {
  return { target_name, count: count ?? null };
}
export async function whole_object(bot: any, event: any, config: any, args: object) {
  return { args };
}
export async function context_only(bot: any, event: any, config: any) {
  return { group: event.group_id };
}`,
    });
    await start();
    llm.enqueue(
      { toolCalls: names.map((name) => ({ name, arguments: { target_name: "self" } })) },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "都查好了" },
    );
    ask("试试各种写法");
    await qq.waitForSent(undefined, 8_000);
    expect(toolResults(1)).toEqual([
      { target_name: "self", count: 2 },
      { target_name: "self" },
      { target_name: "self" },
      { target_name: "self", count: null },
      { args: { target_name: "self" } },
      { group: GROUP },
    ]);
  });
});
