import { afterEach, describe, expect, it } from "vitest";
import { GROUP, SELF } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { geminiDeclarations } from "../support/provider-wire.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { classPlugin, PluginSandbox } from "./plugin-fixtures.ts";

const PARAMETERS = {
  type: "object",
  properties: { city: { type: "string", description: "城市" } },
  required: ["city"],
  additionalProperties: false,
};

/**
 * Plugins declare tools flat; each provider type must send them wrapped its own way. The
 * whole loop runs against each API: declaration, the tool call, its result, the reply.
 */
describe.each([
  ["openai-compatible", "chat-completions"],
  ["gemini", "gemini"],
  ["anthropic", "anthropic"],
] as const)("plugin tools through a %s provider", (type, api) => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  it("wraps the flat declaration for the API and completes the tool loop", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("weather", {
      "index.ts": classPlugin(`
  @Tool("get_weather", { description: "查询城市天气", parameters: ${JSON.stringify(PARAMETERS)} })
  weather(args: { city: string }) { return { city: args.city, forecast: "小雨" }; }`),
    });
    llm = await ScriptedLlmServer.start();
    scene = await startScene({
      llm,
      config: {
        plugins: { dirs: [sandbox.root] },
        llm: {
          providers: [{ id: "main", type, baseUrl: llm.baseUrl, apiKey: "test-key", maxRetries: 0 }],
          models: { planner: ["main/scripted-model"], replyer: ["main/scripted-model"] },
        },
      },
    });
    ({ qq } = scene);
    llm.enqueue(
      { toolCalls: [{ name: "get_weather", arguments: { city: "杭州" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "杭州在下小雨" },
    );
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: "30001",
      message: [
        { type: "at", data: { qq: SELF } },
        { type: "text", data: { text: " 杭州天气？" } },
      ],
    });
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("杭州在下小雨");
    const first = llm.requests[0]!;
    expect(first.api).toBe(api);
    const wire = first.wire as Record<string, unknown>;
    if (api === "chat-completions") {
      expect(wire.tools).toContainEqual({
        type: "function",
        function: { name: "get_weather", description: "查询城市天气", parameters: PARAMETERS },
      });
    } else if (api === "gemini") {
      const declaration = geminiDeclarations(wire).find((entry) => entry.name === "get_weather")!;
      expect(declaration.description).toBe("查询城市天气");
      expect(declaration.parameters).toMatchObject({
        type: "object",
        properties: { city: { type: "string", description: "城市" } },
        required: ["city"],
      });
    } else {
      expect(wire.tools).toContainEqual({
        name: "get_weather",
        description: "查询城市天气",
        input_schema: expect.objectContaining({ type: "object", properties: PARAMETERS.properties }),
      });
    }
    // The tool's object went back to the planner in the API's own result format.
    expect(llm.requests[1]!.promptText).toContain("小雨");
    expect(llm.unscriptedRequests).toEqual([]);
  });
});
