/**
 * Stdio plugins (issue #7): the round trip of one `execute_tool` call to a Node.js plugin
 * process — the registered tool component's invoke: the JSON line written to the child's
 * stdin, the plugin's answer read back from its stdout and matched to the call — one call
 * at a time, as the plugin protocol allows.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILTIN_TOOL_NAMES } from "../src/agent/builtin-tools.ts";
import { createComponentSet } from "../src/components/component-set.ts";
import type { CallContext } from "../src/components/types.ts";
import { createLogger } from "../src/log/logger.ts";
import { MonitorHub } from "../src/monitor/monitor.ts";
import { createPluginSystem } from "../src/plugins/plugin-system.ts";
import { StdioChannelAdapter } from "../src/plugins/stdio/channel-adapter.ts";
import type { Outbox } from "../src/reply/outbox.ts";
import type { MessageStore } from "../src/store/types.ts";
import { percentile, round } from "./child.ts";

const WARMUP = 2_000;
const CALLS = 20_000;

const PLUGIN = `
const readline = require("node:readline");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params } = JSON.parse(line);
  let answer;
  if (method === "activate") {
    answer = { tools: [{ name: "echo", description: "echo", parameters: [{ name: "n", type: "integer", required: true }] }] };
  } else if (method === "execute_tool") {
    answer = { result: params.input };
  } else {
    answer = { result: "ok" };
  }
  process.stdout.write(JSON.stringify(answer) + "\\n");
});
`;

export async function benchStdio(): Promise<Record<string, unknown>> {
  const root = mkdtempSync(join(tmpdir(), "tsumugi-bench-stdio-"));
  mkdirSync(join(root, "echo"));
  writeFileSync(
    join(root, "echo", "plugin.json"),
    JSON.stringify({
      id: "echo",
      version: "1.0.0",
      runtime: "stdio",
      entry: "node plugin.cjs",
      sdk: "^1.0.0",
    }),
  );
  writeFileSync(join(root, "echo", "plugin.cjs"), PLUGIN);
  const components = createComponentSet(BUILTIN_TOOL_NAMES);
  const system = createPluginSystem({
    components,
    settings: () => ({ dirs: [root], disabled: [], config: {} }),
    outbox: {} as Outbox,
    adapterById: () => undefined,
    messages: {} as MessageStore,
    admins: () => [],
    channels: new StdioChannelAdapter(() => {}),
    names: () => ["紬"],
    monitor: new MonitorHub(),
    logger: createLogger({ level: "silent" }),
    watch: false,
  });
  await system.start();
  // Stdio plugins activate in the background; the tool is there once activation is over.
  await system.activated();
  const tool = components.tools.all().find((candidate) => candidate.name === "echo");
  if (!tool) throw new Error("the bench plugin did not register its tool");
  const call = { signal: new AbortController().signal } as CallContext;
  for (let n = 0; n < WARMUP; n++) await tool.invoke({ n }, call);
  const latencies: number[] = [];
  const started = performance.now();
  for (let n = 0; n < CALLS; n++) {
    const before = performance.now();
    const result = await tool.invoke({ n }, call);
    latencies.push(performance.now() - before);
    if (result !== `{"n":${n}}`) throw new Error(`unexpected answer ${String(result)}`);
  }
  const elapsedMs = performance.now() - started;
  await system.stop();
  rmSync(root, { recursive: true, force: true });
  return {
    sequentialCalls: CALLS,
    executeToolMsP50: round(percentile(latencies, 50), 4),
    executeToolMsP99: round(percentile(latencies, 99), 4),
    targetP50Ms: 0.2,
    callsPerSecond: Math.round((CALLS / elapsedMs) * 1000),
    targetCallsPerSecond: 5_000,
  };
}
