/**
 * The Python SDK (issue #16): one tool call's round trip — the registered tool component's
 * invoke, the `execute_tool` line to the Python process, its answer back — through the SDK's
 * runner (class style, `runtime: "python"`) and through a raw JSON-lines Python plugin in the
 * same run, calls interleaved so both see the same machine. The SDK's cost is the difference.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile, round } from "./child.ts";
import { benchToolCall, startBenchPlugins } from "./plugin-tools.ts";

const WARMUP = 500;
const CALLS = 5_000;

/** The stdio protocol's reference loop, answering `execute_tool` with its input. */
const RAW_PLUGIN = `import json, sys

for line in sys.stdin:
    request = json.loads(line)
    method, params = request.get("method"), request.get("params") or {}
    if method == "activate":
        answer = {"tools": [{"name": "raw_echo", "description": "echo",
                             "parameters": [{"name": "n", "type": "integer", "required": True}]}]}
    elif method == "execute_tool":
        answer = {"result": params["input"]}
    else:
        answer = {"result": "ok"}
    print(json.dumps(answer), flush=True)
`;

const SDK_PLUGIN = `from tsumugi_sdk import Plugin, Tool


class Echo(Plugin):
    @Tool("sdk_echo", "echo", {"n": {"type": "integer"}})
    def echo(self, n):
        return '{"n":%d}' % n


def create_plugin():
    return Echo()
`;

function writePlugin(
  root: string,
  id: string,
  manifest: Record<string, unknown>,
  file: string,
  source: string,
) {
  mkdirSync(join(root, id));
  writeFileSync(
    join(root, id, "plugin.json"),
    JSON.stringify({ id, version: "1.0.0", sdk: "^1.0.0", ...manifest }),
  );
  writeFileSync(join(root, id, file), source);
}

export async function benchPythonSdk(): Promise<Record<string, unknown>> {
  const root = mkdtempSync(join(tmpdir(), "tsumugi-bench-python-"));
  writePlugin(root, "raw", { runtime: "stdio", entry: "python3 plugin.py" }, "plugin.py", RAW_PLUGIN);
  writePlugin(root, "sdk", { runtime: "python", entry: "plugin.py" }, "plugin.py", SDK_PLUGIN);
  const plugins = await startBenchPlugins(root);
  const tools = { raw: plugins.tool("raw_echo"), sdk: plugins.tool("sdk_echo") };
  const call = benchToolCall();
  const latencies = { raw: [] as number[], sdk: [] as number[] };
  for (let n = 0; n < WARMUP + CALLS; n++) {
    for (const kind of ["raw", "sdk"] as const) {
      const before = performance.now();
      const result = await tools[kind].invoke({ n }, call);
      if (n >= WARMUP) latencies[kind].push(performance.now() - before);
      if (result !== `{"n":${n}}`) throw new Error(`unexpected ${kind} answer ${String(result)}`);
    }
  }
  await plugins.stop();
  rmSync(root, { recursive: true, force: true });
  const p50 = { raw: percentile(latencies.raw, 50), sdk: percentile(latencies.sdk, 50) };
  return {
    callsEach: CALLS,
    rawMsP50: round(p50.raw, 4),
    sdkMsP50: round(p50.sdk, 4),
    rawMsP99: round(percentile(latencies.raw, 99), 4),
    sdkMsP99: round(percentile(latencies.sdk, 99), 4),
    sdkAddedMsP50: round(p50.sdk - p50.raw, 4),
    targetAddedMsP50: 0.2,
  };
}
