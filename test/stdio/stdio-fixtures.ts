/**
 * Stdio plugins for the tests: the repository's example plugins copied into a sandbox
 * folder, and a Node test plugin whose tools crash, hang or write garbage on demand.
 */
import { cpSync, mkdirSync, readdirSync, readlinkSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PluginFolder, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import type { LogLine } from "../support/log-capture.ts";
import { waitFor } from "../support/wait.ts";

export { PluginSandbox } from "../plugins/plugin-fixtures.ts";

const EXAMPLE_PLUGINS = fileURLToPath(new URL("../../examples/plugins/", import.meta.url));

/** Copies `examples/plugins/<name>` of the repository, unchanged, into the sandbox. */
export function copyExample(sandbox: PluginSandbox, name: string): string {
  const dir = join(sandbox.root, name);
  cpSync(join(EXAMPLE_PLUGINS, name), dir, { recursive: true });
  return dir;
}

/** A stdio plugin whose entry is `node plugin.cjs` with `source` as that file. */
export function nodeStdioPlugin(
  sandbox: PluginSandbox,
  id: string,
  source: string,
  manifest: Record<string, unknown> = {},
): PluginFolder {
  return sandbox.add(
    id,
    { "plugin.cjs": source },
    { runtime: "stdio", entry: "node plugin.cjs", ...manifest },
  );
}

/**
 * A channel plugin with one user, `sender`: what `channelSays` drops into its `data/say` is
 * pushed as `channel_inbound` from that user in chat c1; the bot's answers (`channel_send`)
 * are written to stderr on one line each (line breaks as " / "), which the bot logs with the
 * plugin's id.
 */
export function sayingChannel(
  sandbox: PluginSandbox,
  id: string,
  sender: { id: string; name: string },
): PluginFolder {
  const params = JSON.stringify({ chatId: "c1", senderId: sender.id, senderName: sender.name });
  const folder = nodeStdioPlugin(
    sandbox,
    id,
    `
const fs = require("node:fs");
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
setInterval(() => {
  if (!fs.existsSync("data/say")) return;
  const text = fs.readFileSync("data/say", "utf8");
  fs.rmSync("data/say");
  write({ method: "channel_inbound", params: { message: text, ...${params} } });
}, 50);
const lines = readline.createInterface({ input: process.stdin });
lines.on("close", () => process.exit(0));
lines.on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate") return write({ channel_provider: { name: "web" } });
  if (method === "channel_send") {
    process.stderr.write("sent to " + params.chatId + ": " + params.text.replaceAll("\\n", " / ") + "\\n");
    return write({ result: "ok" });
  }
  write({ result: "ok" });
});
`,
  );
  mkdirSync(join(folder.dir, "data"), { recursive: true });
  return folder;
}

/** What the user of a `sayingChannel` types; resolves with the bot's answer there, read from `logs`. */
export async function channelSays(logs: LogLine[], channel: PluginFolder, text: string): Promise<string> {
  const answers = () =>
    logs.filter((line) => line.plugin === channel.id && line.msg.startsWith("sent to c1: "));
  const before = answers().length;
  // Renamed into place, so the plugin never reads a half-written file.
  writeFileSync(join(channel.dir, "data/say.tmp"), text);
  renameSync(join(channel.dir, "data/say.tmp"), join(channel.dir, "data/say"));
  await waitFor(async () => answers().length > before, 8_000);
  return answers()[before]!.msg.slice("sent to c1: ".length);
}

/**
 * The processes working in `folder`, found by their working directory: an isolated plugin
 * runs in a PID namespace of its own, so the pid it sees of itself means nothing out here,
 * but its folder is shown to it at the same path.
 */
export function processesIn(folder: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === folder) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to look at.
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Tools: `echo` (answers), `crash` (exits with code 3), `hang` (never answers), `noisy`
 * (writes a line that is not JSON, a JSON array and a push of more than 1 MB before its
 * answer). Activation is refused while the file `data/fail-next` holds a count above 0. It
 * logs activations, crashes, deactivations and its exit, one time per line, into `data/`.
 * With `ignoreDeactivate` in its config it neither answers `deactivate` nor exits.
 */
export const SUPERVISED_PLUGIN = `
const fs = require("node:fs");
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
fs.mkdirSync("data", { recursive: true });
const note = (file) => fs.appendFileSync("data/" + file, Date.now() + "\\n");
let config = {};
process.on("exit", () => note("exits.log"));
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  const params = request.params || {};
  switch (request.method) {
    case "activate": {
      config = params.config || {};
      note("activations.log");
      const failing = fs.existsSync("data/fail-next") ? Number(fs.readFileSync("data/fail-next", "utf8")) : 0;
      if (failing > 0) {
        fs.writeFileSync("data/fail-next", String(failing - 1));
        return write({ error: "not ready yet" });
      }
      return write({
        tools: [
          { name: "echo", description: "Echo", parameters: [{ name: "text", type: "string", required: true }] },
          { name: "crash", description: "Crash", parameters: [] },
          { name: "hang", description: "Hang", parameters: [] },
          { name: "noisy", description: "Noise before the answer", parameters: [] },
        ],
      });
    }
    case "execute_tool": {
      const args = JSON.parse(params.input);
      if (params.toolName === "echo") return write({ result: "echo: " + args.text });
      if (params.toolName === "crash") {
        note("crashes.log");
        process.exit(3);
      }
      if (params.toolName === "hang") return;
      if (params.toolName === "noisy") {
        process.stdout.write("this is not json\\n");
        process.stdout.write("[1, 2, 3]\\n");
        write({ method: "web_ui", params: { widgets: [{ type: "text", text: "x".repeat(1100000) }] } });
        return write({ result: "still here" });
      }
      return write({ error: "unknown tool " + params.toolName });
    }
    case "deactivate":
      note("deactivations.log");
      if (config.ignoreDeactivate) {
        setInterval(() => {}, 1000);
        return;
      }
      return write({ result: "ok" });
    default:
      return write({ error: "unknown method: " + request.method });
  }
});
`;

export const SUPERVISED_CONFIG_SCHEMA = {
  type: "object",
  properties: { ignoreDeactivate: { type: "boolean", default: false } },
};

/** Polls an asynchronous condition (e.g. an HTTP status) until it holds. */
/** What `FAULT_PLUGIN` does, written to its `behaviour.json`. */
export interface FaultBehaviour {
  /** Never answer `activate`. */
  neverActivate?: boolean;
  /** Exit (code 3) this long after answering `activate`. */
  crashAfterActivateMs?: number;
  /** Declared as they are, however broken. */
  tools?: unknown[];
}

/**
 * A stdio plugin that misbehaves as its `behaviour.json` says. Tools: `echo` answers, `big`
 * answers with a line of 1.2 MB. It logs each activation, one time per line, to
 * `data/activations.log`.
 */
export const FAULT_PLUGIN = `
const fs = require("node:fs");
const readline = require("node:readline");
const behaviour = JSON.parse(fs.readFileSync("behaviour.json", "utf8"));
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
fs.mkdirSync("data", { recursive: true });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  const params = request.params || {};
  if (request.method === "activate") {
    fs.appendFileSync("data/activations.log", Date.now() + "\\n");
    if (behaviour.neverActivate) return;
    write({ tools: behaviour.tools || [] });
    if (behaviour.crashAfterActivateMs !== undefined) setTimeout(() => process.exit(3), behaviour.crashAfterActivateMs);
    return;
  }
  if (request.method === "execute_tool") {
    if (params.toolName === "big") return write({ result: "x".repeat(1200000) });
    return write({ result: "echo: " + JSON.parse(params.input).text });
  }
  if (request.method === "deactivate") return write({ result: "ok" });
  write({ error: "unknown method: " + request.method });
});
`;

/** `FAULT_PLUGIN` as the plugin `id`, behaving as `behaviour` says. */
export function faultPlugin(
  sandbox: PluginSandbox,
  id: string,
  behaviour: FaultBehaviour,
  manifest: Record<string, unknown> = {},
): PluginFolder {
  const folder = nodeStdioPlugin(sandbox, id, FAULT_PLUGIN, manifest);
  folder.write("behaviour.json", JSON.stringify(behaviour));
  return folder;
}

export const ECHO_TOOL = {
  name: "echo",
  description: "Echo",
  parameters: [{ name: "text", type: "string", required: true }],
};
