/**
 * Stdio plugins (issue #7): the round trip of one `execute_tool` call to a Node.js plugin
 * process — the registered tool component's invoke: the JSON line written to the child's
 * stdin, the plugin's answer read back from its stdout and matched to the call — one call
 * at a time, as the plugin protocol allows.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile, round } from "./child.ts";
import { benchToolCall, startBenchPlugins } from "./plugin-tools.ts";

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
  const plugins = await startBenchPlugins(root);
  const tool = plugins.tool("echo");
  const call = benchToolCall();
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
  await plugins.stop();
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
