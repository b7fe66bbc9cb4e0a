import { afterEach, describe, expect, it } from "vitest";
import { toolResultInGroup } from "../support/memory-tools.ts";
import { ALICE, GROUP } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { nodeStdioPlugin, PluginSandbox } from "./stdio-fixtures.ts";

/**
 * The raw protocol, no SDK: `memory_tour` remembers a fact, recalls it, forgets it, recalls
 * again, then pushes an invalid `memory_forget` and one for a call that is not in flight; it
 * waits for the bot's `memory` line for each and answers with all of them.
 */
const TOUR = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const waiting = new Map();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "memory") return waiting.get(params.requestId)?.(params);
  if (method === "activate") return write({ tools: [{ name: "memory_tour", description: "记忆", parameters: [] }] });
  if (method === "execute_tool") {
    const ask = (push, fields) =>
      new Promise((resolve) => {
        const requestId = "r" + waiting.size;
        waiting.set(requestId, resolve);
        write({ method: push, params: { callId: params.callId, requestId, ...fields } });
      });
    return (async () => {
      const remembered = await ask("memory_remember", { content: "下周二要去成都出差" });
      const recalled = await ask("memory_recall", { query: "成都", limit: 3 });
      const forgotten = await ask("memory_forget", { id: remembered.memory.id });
      const after = await ask("memory_recall", { query: "成都" });
      const invalid = await ask("memory_forget", { id: "one" });
      const gone = await ask("memory_recall", { callId: "gone:call", query: "成都" });
      write({ result: JSON.stringify({ remembered, recalled, forgotten, after, invalid, gone }) });
    })();
  }
  write({ result: "ok" });
});
`;

describe("stdio plugins use long-term memory (memory_recall / memory_remember / memory_forget → memory)", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  it("answers each push with a memory line carrying its requestId: the memory, the memories, forgotten, or an error", async () => {
    sandbox = new PluginSandbox();
    nodeStdioPlugin(sandbox, "tour", TOUR);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    const result = (await toolResultInGroup(scene, GROUP, "memory_tour", {})) as Record<string, unknown>;
    const memory = {
      id: expect.any(Number),
      about: "person",
      user_id: ALICE,
      subject_name: "Alice",
      content: "下周二要去成都出差",
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      confirmations: 1,
    };
    expect(result).toEqual({
      remembered: { requestId: "r0", memory },
      recalled: { requestId: "r1", memories: [memory] },
      forgotten: { requestId: "r2", forgotten: true },
      after: { requestId: "r3", memories: [] },
      invalid: { requestId: "r4", error: "invalid memory_forget: id must be integer" },
      gone: { requestId: "r5", error: "the call is not in flight" },
    });
  });
});
